CREATE TABLE "markers" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"group_id" integer,
	"name" text NOT NULL,
	"color" text NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_markers" (
	"user_id" integer NOT NULL,
	"marker_id" integer NOT NULL,
	CONSTRAINT "user_markers_user_id_marker_id_pk" PRIMARY KEY("user_id","marker_id")
);
--> statement-breakpoint
ALTER TABLE "markers" ADD CONSTRAINT "markers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "markers" ADD CONSTRAINT "markers_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_markers" ADD CONSTRAINT "user_markers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_markers" ADD CONSTRAINT "user_markers_marker_id_markers_id_fk" FOREIGN KEY ("marker_id") REFERENCES "public"."markers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "markers_project_name" ON "markers" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "markers_group" ON "markers" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "user_markers_marker" ON "user_markers" USING btree ("marker_id");--> statement-breakpoint
-- Written by hand (drizzle-kit cannot express triggers): markers feed cached reads like every table (migration 0007).
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "markers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_markers" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
