CREATE TABLE "call_history" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"call_id" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"from_user_id" integer,
	"from_name" text,
	"to_user_id" integer,
	"to_name" text,
	"status" text NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"type" text DEFAULT 'normal' NOT NULL,
	"sos" boolean DEFAULT false NOT NULL,
	"answered_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "call_interceptions" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"group_ids" integer[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "call_records" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"sip_call_id" text NOT NULL,
	"status" text NOT NULL,
	"type" text DEFAULT 'normal' NOT NULL,
	"caller" text NOT NULL,
	"callee" text NOT NULL,
	"answered_by" text,
	"sos" boolean DEFAULT false NOT NULL,
	"info" jsonb NOT NULL,
	"numbers" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"answered_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "forward_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer,
	"name" text NOT NULL,
	"params" jsonb NOT NULL,
	"forward_rules" jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sip_numbers" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"number" text NOT NULL,
	"name" text,
	"password" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_reserved" boolean DEFAULT false NOT NULL,
	"user_id" integer,
	"device_id" integer,
	"group_id" integer,
	"forward_mode" text DEFAULT 'disabled' NOT NULL,
	"forward_rules" jsonb NOT NULL,
	"forward_group_id" integer,
	"purpose" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sip_trunk_groups" (
	"trunk_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "sip_trunk_groups_trunk_id_group_id_pk" PRIMARY KEY("trunk_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "sip_trunks" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"outgoing_number" text NOT NULL,
	"termination_uri" text NOT NULL,
	"login" text,
	"password" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_history" ADD CONSTRAINT "call_history_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_interceptions" ADD CONSTRAINT "call_interceptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_interceptions" ADD CONSTRAINT "call_interceptions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_records" ADD CONSTRAINT "call_records_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forward_groups" ADD CONSTRAINT "forward_groups_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forward_groups" ADD CONSTRAINT "forward_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_numbers" ADD CONSTRAINT "sip_numbers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_numbers" ADD CONSTRAINT "sip_numbers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_numbers" ADD CONSTRAINT "sip_numbers_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_numbers" ADD CONSTRAINT "sip_numbers_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_numbers" ADD CONSTRAINT "sip_numbers_forward_group_id_forward_groups_id_fk" FOREIGN KEY ("forward_group_id") REFERENCES "public"."forward_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_trunk_groups" ADD CONSTRAINT "sip_trunk_groups_trunk_id_sip_trunks_id_fk" FOREIGN KEY ("trunk_id") REFERENCES "public"."sip_trunks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_trunk_groups" ADD CONSTRAINT "sip_trunk_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sip_trunks" ADD CONSTRAINT "sip_trunks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_history_project_time" ON "call_history" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "call_history_from" ON "call_history" USING btree ("from_number","created_at");--> statement-breakpoint
CREATE INDEX "call_history_to" ON "call_history" USING btree ("to_number","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "call_records_sip_call" ON "call_records" USING btree ("sip_call_id");--> statement-breakpoint
CREATE INDEX "call_records_open" ON "call_records" USING btree ("project_id","created_at") WHERE status <> 'destroyed';--> statement-breakpoint
CREATE INDEX "forward_groups_project_name" ON "forward_groups" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "forward_groups_group" ON "forward_groups" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sip_numbers_number" ON "sip_numbers" USING btree ("number");--> statement-breakpoint
CREATE INDEX "sip_numbers_project_number" ON "sip_numbers" USING btree ("project_id","number","id");--> statement-breakpoint
CREATE INDEX "sip_numbers_group" ON "sip_numbers" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "sip_numbers_user" ON "sip_numbers" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sip_numbers_device" ON "sip_numbers" USING btree ("device_id") WHERE device_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "sip_numbers_master" ON "sip_numbers" USING btree ("user_id") WHERE purpose = 'master_sip_number';--> statement-breakpoint
CREATE UNIQUE INDEX "sip_numbers_group_number" ON "sip_numbers" USING btree ("group_id") WHERE purpose = 'group_sip_number';--> statement-breakpoint
CREATE INDEX "sip_numbers_forward_group" ON "sip_numbers" USING btree ("forward_group_id");--> statement-breakpoint
CREATE INDEX "sip_trunk_groups_group" ON "sip_trunk_groups" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "sip_trunks_project_name" ON "sip_trunks" USING btree ("project_id","name","id");--> statement-breakpoint
-- Written by hand (drizzle-kit cannot express triggers): telephony's configuration feeds cached reads like every table (migration 0007);
-- call_records and call_history change with every call and stay out of the change feed.
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sip_numbers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "forward_groups" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sip_trunks" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sip_trunk_groups" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "call_interceptions" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
