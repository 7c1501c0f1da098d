CREATE TABLE "emergency_alert_devices" (
	"alert_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	CONSTRAINT "emergency_alert_devices_alert_id_device_id_pk" PRIMARY KEY("alert_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "emergency_alert_groups" (
	"alert_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "emergency_alert_groups_alert_id_group_id_pk" PRIMARY KEY("alert_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "emergency_alerts" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"device_type" text DEFAULT 'monitor' NOT NULL,
	"playback_duration" integer DEFAULT 60 NOT NULL,
	"open_locks" boolean DEFAULT false NOT NULL,
	"file_key" text,
	"filename" text,
	"file_size" integer,
	"file_type" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "emergency_lockdowns" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	"reason" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_by" integer,
	"ended_at" timestamp with time zone,
	"ended_by" integer
);
--> statement-breakpoint
CREATE TABLE "emergency_playbacks" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"alert_id" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_by" integer,
	"ends_at" timestamp with time zone NOT NULL,
	"stopped_at" timestamp with time zone,
	"stopped_by" integer
);
--> statement-breakpoint
CREATE TABLE "emergency_tasks" (
	"task_id" integer PRIMARY KEY NOT NULL,
	"playback_id" integer,
	"lockdown_id" integer,
	"device_id" integer NOT NULL,
	"kind" text NOT NULL,
	"lock_number" integer
);
--> statement-breakpoint
ALTER TABLE "emergency_alert_devices" ADD CONSTRAINT "emergency_alert_devices_alert_id_emergency_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."emergency_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_alert_devices" ADD CONSTRAINT "emergency_alert_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_alert_groups" ADD CONSTRAINT "emergency_alert_groups_alert_id_emergency_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."emergency_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_alert_groups" ADD CONSTRAINT "emergency_alert_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_alerts" ADD CONSTRAINT "emergency_alerts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_lockdowns" ADD CONSTRAINT "emergency_lockdowns_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_lockdowns" ADD CONSTRAINT "emergency_lockdowns_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_playbacks" ADD CONSTRAINT "emergency_playbacks_alert_id_emergency_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."emergency_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_tasks" ADD CONSTRAINT "emergency_tasks_task_id_device_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."device_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_tasks" ADD CONSTRAINT "emergency_tasks_playback_id_emergency_playbacks_id_fk" FOREIGN KEY ("playback_id") REFERENCES "public"."emergency_playbacks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_tasks" ADD CONSTRAINT "emergency_tasks_lockdown_id_emergency_lockdowns_id_fk" FOREIGN KEY ("lockdown_id") REFERENCES "public"."emergency_lockdowns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emergency_tasks" ADD CONSTRAINT "emergency_tasks_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "emergency_alert_devices_device" ON "emergency_alert_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "emergency_alert_groups_group" ON "emergency_alert_groups" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "emergency_alerts_project_name" ON "emergency_alerts" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "emergency_lockdowns_project" ON "emergency_lockdowns" USING btree ("project_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "emergency_lockdowns_active_group" ON "emergency_lockdowns" USING btree ("group_id") WHERE ended_at IS NULL;--> statement-breakpoint
CREATE INDEX "emergency_playbacks_alert" ON "emergency_playbacks" USING btree ("alert_id","id");--> statement-breakpoint
CREATE INDEX "emergency_tasks_playback" ON "emergency_tasks" USING btree ("playback_id");--> statement-breakpoint
CREATE INDEX "emergency_tasks_lockdown" ON "emergency_tasks" USING btree ("lockdown_id");--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_alerts" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_alert_groups" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_alert_devices" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_playbacks" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_tasks" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "emergency_lockdowns" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();