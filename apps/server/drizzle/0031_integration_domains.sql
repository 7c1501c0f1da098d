ALTER TABLE "integrations" ADD COLUMN "domain_ids" integer[] DEFAULT '{}'::int[] NOT NULL;--> statement-breakpoint
CREATE INDEX "integrations_domains" ON "integrations" USING gin ("domain_ids");