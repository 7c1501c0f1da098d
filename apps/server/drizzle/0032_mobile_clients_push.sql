CREATE TABLE "mobile_clients" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"mobile_client_id" text NOT NULL,
	"platform" text NOT NULL,
	"info" text,
	"vendor_id" text,
	"push_token" text,
	"sip_number" text,
	"ukey2" text,
	"is_sdk" boolean DEFAULT false NOT NULL,
	"auth_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"notification_id" integer,
	"platform" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"response_status" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mobile_clients" ADD CONSTRAINT "mobile_clients_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mobile_clients" ADD CONSTRAINT "mobile_clients_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mobile_clients_client" ON "mobile_clients" USING btree ("project_id","mobile_client_id");--> statement-breakpoint
CREATE INDEX "mobile_clients_user" ON "mobile_clients" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "mobile_clients_user_push" ON "mobile_clients" USING btree ("user_id","platform") WHERE push_token IS NOT NULL;--> statement-breakpoint
CREATE INDEX "push_deliveries_due" ON "push_deliveries" USING btree ("next_attempt_at") WHERE status IN ('pending', 'delivering');--> statement-breakpoint
CREATE UNIQUE INDEX "push_deliveries_notification" ON "push_deliveries" USING btree ("notification_id","platform");--> statement-breakpoint
-- Users (and their lists, read through the read cache) show their mobile clients: a change tells every instance.
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "mobile_clients" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
