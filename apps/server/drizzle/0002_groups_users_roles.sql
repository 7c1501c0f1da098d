ALTER TABLE "domain_types" ADD COLUMN "domain_id" integer;--> statement-breakpoint
ALTER TABLE "groups" ADD COLUMN "internal_subnetworks" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "domain_types" ADD CONSTRAINT "domain_types_domain_id_groups_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "groups_sibling_address" ON "groups" USING btree ("project_id",coalesce("parent_id", 0),"domain_type_id","logic_address") WHERE "groups"."logic_address" IS NOT NULL;