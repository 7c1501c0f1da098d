CREATE TABLE "elevator_controllers" (
	"elevator_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"floor_map" jsonb NOT NULL,
	"settings" jsonb NOT NULL,
	CONSTRAINT "elevator_controllers_elevator_id_device_id_pk" PRIMARY KEY("elevator_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "elevator_rule_elevators" (
	"rule_id" integer NOT NULL,
	"elevator_id" integer NOT NULL,
	"floors" integer[] NOT NULL,
	CONSTRAINT "elevator_rule_elevators_rule_id_elevator_id_pk" PRIMARY KEY("rule_id","elevator_id")
);
--> statement-breakpoint
CREATE TABLE "elevator_rule_users" (
	"rule_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "elevator_rule_users_rule_id_user_id_pk" PRIMARY KEY("rule_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "elevator_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "elevators" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer,
	"name" text NOT NULL,
	"has_access_mode_controller" boolean DEFAULT false NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "elevator_controllers" ADD CONSTRAINT "elevator_controllers_elevator_id_elevators_id_fk" FOREIGN KEY ("elevator_id") REFERENCES "public"."elevators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_controllers" ADD CONSTRAINT "elevator_controllers_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_rule_elevators" ADD CONSTRAINT "elevator_rule_elevators_rule_id_elevator_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."elevator_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_rule_elevators" ADD CONSTRAINT "elevator_rule_elevators_elevator_id_elevators_id_fk" FOREIGN KEY ("elevator_id") REFERENCES "public"."elevators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_rule_users" ADD CONSTRAINT "elevator_rule_users_rule_id_elevator_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."elevator_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_rule_users" ADD CONSTRAINT "elevator_rule_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevator_rules" ADD CONSTRAINT "elevator_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevators" ADD CONSTRAINT "elevators_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elevators" ADD CONSTRAINT "elevators_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "elevator_controllers_device" ON "elevator_controllers" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "elevator_rule_elevators_elevator" ON "elevator_rule_elevators" USING btree ("elevator_id");--> statement-breakpoint
CREATE INDEX "elevator_rule_users_user" ON "elevator_rule_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "elevator_rules_project_name" ON "elevator_rules" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "elevators_project_name" ON "elevators" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "elevators_group" ON "elevators" USING btree ("group_id");--> statement-breakpoint
-- Written by hand (drizzle-kit cannot express triggers): elevators feed cached reads like every table (migration 0007).
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "elevators" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "elevator_controllers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "elevator_rules" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "elevator_rule_users" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "elevator_rule_elevators" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
