CREATE TABLE "access_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "access_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"lock_number" integer DEFAULT 1 NOT NULL,
	"granted" boolean NOT NULL,
	"reason" text,
	"value" text,
	"identifier_id" integer,
	"user_id" integer,
	"rule_id" integer,
	"direction" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "access_rule_devices" (
	"rule_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"lock_number" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "access_rule_devices_rule_id_device_id_lock_number_pk" PRIMARY KEY("rule_id","device_id","lock_number")
);
--> statement-breakpoint
CREATE TABLE "access_rule_groups" (
	"rule_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "access_rule_groups_rule_id_group_id_pk" PRIMARY KEY("rule_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "access_rule_identifiers" (
	"rule_id" integer NOT NULL,
	"identifier_id" integer NOT NULL,
	CONSTRAINT "access_rule_identifiers_rule_id_identifier_id_pk" PRIMARY KEY("rule_id","identifier_id")
);
--> statement-breakpoint
CREATE TABLE "access_rule_time_rules" (
	"rule_id" integer NOT NULL,
	"time_rule_id" integer NOT NULL,
	CONSTRAINT "access_rule_time_rules_rule_id_time_rule_id_pk" PRIMARY KEY("rule_id","time_rule_id")
);
--> statement-breakpoint
CREATE TABLE "access_rule_users" (
	"rule_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "access_rule_users_rule_id_user_id_pk" PRIMARY KEY("rule_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "access_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"is_shareable" boolean DEFAULT false NOT NULL,
	"prohibition" boolean DEFAULT false NOT NULL,
	"available_for_guest" boolean DEFAULT false NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identifiers" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"type" text DEFAULT 'card' NOT NULL,
	"value" text NOT NULL,
	"owner_id" integer,
	"period_restrict_active" boolean DEFAULT false NOT NULL,
	"period_restrict_from" timestamp with time zone,
	"period_restrict_to" timestamp with time zone,
	"passes_restrict_active" boolean DEFAULT false NOT NULL,
	"passes_restrict_max_count" integer DEFAULT 0 NOT NULL,
	"passes_restrict_passes_count" integer DEFAULT 0 NOT NULL,
	"passes_restrict_since" timestamp with time zone,
	"guest_type" text,
	"revoked_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "time_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer,
	"name" text NOT NULL,
	"description" text,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"valid_from" text,
	"valid_to" text,
	"is_all_day" boolean DEFAULT false NOT NULL,
	"repeat_mode" text DEFAULT 'weekly' NOT NULL,
	"entries" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"exceptions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_rule_devices" ADD CONSTRAINT "access_rule_devices_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_devices" ADD CONSTRAINT "access_rule_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_groups" ADD CONSTRAINT "access_rule_groups_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_groups" ADD CONSTRAINT "access_rule_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_identifiers" ADD CONSTRAINT "access_rule_identifiers_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_identifiers" ADD CONSTRAINT "access_rule_identifiers_identifier_id_identifiers_id_fk" FOREIGN KEY ("identifier_id") REFERENCES "public"."identifiers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_time_rules" ADD CONSTRAINT "access_rule_time_rules_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_time_rules" ADD CONSTRAINT "access_rule_time_rules_time_rule_id_time_rules_id_fk" FOREIGN KEY ("time_rule_id") REFERENCES "public"."time_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_users" ADD CONSTRAINT "access_rule_users_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rule_users" ADD CONSTRAINT "access_rule_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_rules" ADD CONSTRAINT "access_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identifiers" ADD CONSTRAINT "identifiers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identifiers" ADD CONSTRAINT "identifiers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_rules" ADD CONSTRAINT "time_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_rules" ADD CONSTRAINT "time_rules_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "access_events_project_time" ON "access_events" USING btree ("project_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "access_events_device" ON "access_events" USING btree ("device_id","occurred_at");--> statement-breakpoint
CREATE INDEX "access_events_identifier" ON "access_events" USING btree ("identifier_id","occurred_at");--> statement-breakpoint
CREATE INDEX "access_rule_devices_device" ON "access_rule_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "access_rule_groups_group" ON "access_rule_groups" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "access_rule_identifiers_identifier" ON "access_rule_identifiers" USING btree ("identifier_id");--> statement-breakpoint
CREATE INDEX "access_rule_time_rules_time_rule" ON "access_rule_time_rules" USING btree ("time_rule_id");--> statement-breakpoint
CREATE INDEX "access_rule_users_user" ON "access_rule_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "access_rules_project_name" ON "access_rules" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE UNIQUE INDEX "identifiers_type_value" ON "identifiers" USING btree ("project_id","type","value");--> statement-breakpoint
CREATE INDEX "identifiers_project_name" ON "identifiers" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "identifiers_owner" ON "identifiers" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "identifiers_value" ON "identifiers" USING btree ("value");--> statement-breakpoint
CREATE INDEX "time_rules_project_name" ON "time_rules" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "time_rules_group" ON "time_rules" USING btree ("group_id");--> statement-breakpoint
-- Written by hand (drizzle-kit cannot express triggers): access configuration feeds cached reads
-- like every table (migration 0007); access events are frequent writes no cached read uses.
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "time_rules" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rules" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rule_devices" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rule_groups" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rule_users" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rule_identifiers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "access_rule_time_rules" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "identifiers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
