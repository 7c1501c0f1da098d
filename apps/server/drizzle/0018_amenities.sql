CREATE TABLE "license_notices" (
	"project_id" integer NOT NULL,
	"subject" text NOT NULL,
	"sent_on" date NOT NULL,
	CONSTRAINT "license_notices_project_id_subject_pk" PRIMARY KEY("project_id","subject")
);
--> statement-breakpoint
CREATE TABLE "license_usage" (
	"project_id" integer NOT NULL,
	"day" date NOT NULL,
	"sip_numbers_used" integer NOT NULL,
	"mobile_app_used" integer NOT NULL,
	"ukey2_used" integer NOT NULL,
	"sip_limit" integer,
	"mobile_app_limit" integer,
	"ukey2_limit" integer,
	CONSTRAINT "license_usage_project_id_day_pk" PRIMARY KEY("project_id","day")
);
--> statement-breakpoint
CREATE TABLE "licenses" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"license_id" text NOT NULL,
	"source" text NOT NULL,
	"file" jsonb NOT NULL,
	"period_from" bigint NOT NULL,
	"period_to" bigint NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "license_notices" ADD CONSTRAINT "license_notices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_usage" ADD CONSTRAINT "license_usage_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "licenses_project_license" ON "licenses" USING btree ("project_id","license_id");--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "amenities" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "amenity_domains" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "amenity_access_rules" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
