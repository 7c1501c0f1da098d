CREATE SEQUENCE "public"."device_task_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "device_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"type" text NOT NULL,
	"identifier" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_status" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"online" boolean DEFAULT false NOT NULL,
	"firmware" text,
	"capabilities" jsonb,
	"last_seen_at" timestamp with time zone,
	"sync_errors" jsonb
);
--> statement-breakpoint
CREATE TABLE "device_tasks" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"seq" bigint DEFAULT nextval('device_task_seq') NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" text DEFAULT 'new' NOT NULL,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer,
	"name" text NOT NULL,
	"description" text,
	"type" text NOT NULL,
	"model" text NOT NULL,
	"ip_address" text,
	"port" integer DEFAULT 80 NOT NULL,
	"serial_number" text NOT NULL,
	"password_hash" text,
	"device_login" text,
	"device_password" text,
	"protocol" text DEFAULT 'mqtt' NOT NULL,
	"get_logs" boolean DEFAULT false NOT NULL,
	"location_latitude" double precision,
	"location_longitude" double precision,
	"management" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"device_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"initialized_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_events" ADD CONSTRAINT "device_events_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_status" ADD CONSTRAINT "device_status_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_tasks" ADD CONSTRAINT "device_tasks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_tasks" ADD CONSTRAINT "device_tasks_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_events_project_time" ON "device_events" USING btree ("project_id","occurred_at");--> statement-breakpoint
CREATE INDEX "device_events_device" ON "device_events" USING btree ("device_id","occurred_at");--> statement-breakpoint
CREATE INDEX "device_tasks_device_open" ON "device_tasks" USING btree ("device_id","seq") WHERE state IN ('new', 'waiting', 'queued', 'started');--> statement-breakpoint
CREATE INDEX "device_tasks_project" ON "device_tasks" USING btree ("project_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_serial_number" ON "devices" USING btree ("serial_number");--> statement-breakpoint
CREATE INDEX "devices_project_name" ON "devices" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "devices_group" ON "devices" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "devices_created_by" ON "devices" USING btree ("created_by");--> statement-breakpoint
-- Written by hand (drizzle-kit cannot express triggers): device records feed cached reads like
-- every table (migration 0007); presence, tasks and events are frequent writes no cached read
-- uses, so they stay out of the change feed and never empty the read cache.
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "devices" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
