CREATE TABLE "ip_bans" (
	"service" text NOT NULL,
	"ip" text NOT NULL,
	"cause" text NOT NULL,
	"failures" integer NOT NULL,
	"window_seconds" integer NOT NULL,
	"last_attempt" text,
	"banned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ip_bans_service_ip_pk" PRIMARY KEY("service","ip")
);
--> statement-breakpoint
CREATE TABLE "ip_blocking_services" (
	"name" text PRIMARY KEY NOT NULL,
	"is_enabled" boolean NOT NULL,
	"max_failures" integer NOT NULL,
	"window_seconds" integer NOT NULL,
	"ban_seconds" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ip_whitelist" (
	"service" text NOT NULL,
	"ip" text NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ip_whitelist_service_ip_pk" PRIMARY KEY("service","ip")
);
--> statement-breakpoint
CREATE INDEX "ip_bans_expires" ON "ip_bans" USING btree ("expires_at");--> statement-breakpoint
-- Written by hand: IP blocking's tables feed every instance's in-memory state (and cached reads), as every configuration table does (migration 0007).
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "ip_blocking_services" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "ip_bans" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "ip_whitelist" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
-- The server's own loopback is never banned by default: behind a reverse proxy without TRUST_PROXY every caller is 127.0.0.1, and one ban would lock everyone out. Shown in the whitelist, and removable.
INSERT INTO "ip_whitelist" ("service", "ip") VALUES ('console', '127.0.0.1'), ('console', '::1'), ('api', '127.0.0.1'), ('api', '::1'), ('sip', '127.0.0.1'), ('sip', '::1'), ('guest', '127.0.0.1'), ('guest', '::1');
