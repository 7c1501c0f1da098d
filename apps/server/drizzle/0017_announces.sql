CREATE TABLE "amenities" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"address" text,
	"description" text,
	"persons_min" integer DEFAULT 1 NOT NULL,
	"persons_max" integer DEFAULT 500 NOT NULL,
	"slot_duration" integer DEFAULT 3600 NOT NULL,
	"slot_items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"image_path" text,
	"terms_path" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "amenity_access_rules" (
	"amenity_id" integer NOT NULL,
	"rule_id" integer NOT NULL,
	CONSTRAINT "amenity_access_rules_amenity_id_rule_id_pk" PRIMARY KEY("amenity_id","rule_id")
);
--> statement-breakpoint
CREATE TABLE "amenity_domains" (
	"amenity_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "amenity_domains_amenity_id_group_id_pk" PRIMARY KEY("amenity_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "amenity_reservation_logs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "amenity_reservation_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"reservation_id" integer NOT NULL,
	"event" text NOT NULL,
	"info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "amenity_reservations" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"amenity_id" integer NOT NULL,
	"user_id" integer,
	"identifier_id" integer,
	"date" date NOT NULL,
	"number_of_persons" integer NOT NULL,
	"time_slots" jsonb NOT NULL,
	"user_offset" integer DEFAULT 0 NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'reserved' NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announce_deliveries" (
	"id" serial PRIMARY KEY NOT NULL,
	"announce_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"token" text NOT NULL,
	"wave" integer DEFAULT 0 NOT NULL,
	"mail_id" integer,
	"has_email" boolean,
	"handed_at" timestamp with time zone,
	"notified_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"answers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announce_groups" (
	"announce_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "announce_groups_announce_id_group_id_pk" PRIMARY KEY("announce_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "announce_users" (
	"announce_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "announce_users_announce_id_user_id_pk" PRIMARY KEY("announce_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "announces" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"subject" text NOT NULL,
	"type" text DEFAULT 'info' NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"type_info" jsonb NOT NULL,
	"send_via" text DEFAULT 'email' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"use_owner_info" boolean DEFAULT false NOT NULL,
	"execute_at" timestamp with time zone,
	"wave" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "amenities" ADD CONSTRAINT "amenities_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_access_rules" ADD CONSTRAINT "amenity_access_rules_amenity_id_amenities_id_fk" FOREIGN KEY ("amenity_id") REFERENCES "public"."amenities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_access_rules" ADD CONSTRAINT "amenity_access_rules_rule_id_access_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."access_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_domains" ADD CONSTRAINT "amenity_domains_amenity_id_amenities_id_fk" FOREIGN KEY ("amenity_id") REFERENCES "public"."amenities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_domains" ADD CONSTRAINT "amenity_domains_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_reservation_logs" ADD CONSTRAINT "amenity_reservation_logs_reservation_id_amenity_reservations_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."amenity_reservations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_reservations" ADD CONSTRAINT "amenity_reservations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_reservations" ADD CONSTRAINT "amenity_reservations_amenity_id_amenities_id_fk" FOREIGN KEY ("amenity_id") REFERENCES "public"."amenities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_reservations" ADD CONSTRAINT "amenity_reservations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenity_reservations" ADD CONSTRAINT "amenity_reservations_identifier_id_identifiers_id_fk" FOREIGN KEY ("identifier_id") REFERENCES "public"."identifiers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_deliveries" ADD CONSTRAINT "announce_deliveries_announce_id_announces_id_fk" FOREIGN KEY ("announce_id") REFERENCES "public"."announces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_deliveries" ADD CONSTRAINT "announce_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_groups" ADD CONSTRAINT "announce_groups_announce_id_announces_id_fk" FOREIGN KEY ("announce_id") REFERENCES "public"."announces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_groups" ADD CONSTRAINT "announce_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_users" ADD CONSTRAINT "announce_users_announce_id_announces_id_fk" FOREIGN KEY ("announce_id") REFERENCES "public"."announces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announce_users" ADD CONSTRAINT "announce_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announces" ADD CONSTRAINT "announces_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "amenities_project_name" ON "amenities" USING btree ("project_id","name","id");--> statement-breakpoint
CREATE INDEX "amenity_access_rules_rule" ON "amenity_access_rules" USING btree ("rule_id");--> statement-breakpoint
CREATE INDEX "amenity_domains_group" ON "amenity_domains" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "amenity_reservation_logs_reservation" ON "amenity_reservation_logs" USING btree ("reservation_id","created_at");--> statement-breakpoint
CREATE INDEX "amenity_reservations_amenity_date" ON "amenity_reservations" USING btree ("amenity_id","date");--> statement-breakpoint
CREATE INDEX "amenity_reservations_project_created" ON "amenity_reservations" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "amenity_reservations_user" ON "amenity_reservations" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "amenity_reservations_status_starts" ON "amenity_reservations" USING btree ("status","starts_at");--> statement-breakpoint
CREATE INDEX "amenity_reservations_status_ends" ON "amenity_reservations" USING btree ("status","ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "announce_deliveries_token" ON "announce_deliveries" USING btree ("token");--> statement-breakpoint
CREATE UNIQUE INDEX "announce_deliveries_recipient" ON "announce_deliveries" USING btree ("announce_id","user_id");--> statement-breakpoint
CREATE INDEX "announce_deliveries_wave" ON "announce_deliveries" USING btree ("announce_id","wave","id");--> statement-breakpoint
CREATE INDEX "announce_deliveries_answered" ON "announce_deliveries" USING btree ("announce_id","answered_at") WHERE "announce_deliveries"."answered_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "announce_deliveries_user" ON "announce_deliveries" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "announce_groups_group" ON "announce_groups" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "announce_users_user" ON "announce_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "announces_project" ON "announces" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "announces_status" ON "announces" USING btree ("status");--> statement-breakpoint
CREATE INDEX "announces_created_by" ON "announces" USING btree ("created_by");--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "announces" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "announce_users" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();--> statement-breakpoint
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "announce_groups" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
