ALTER TABLE "identifiers" ADD COLUMN "guest_key" text;--> statement-breakpoint
ALTER TABLE "identifiers" ADD COLUMN "key_message" text;--> statement-breakpoint
CREATE UNIQUE INDEX "identifiers_guest_key" ON "identifiers" USING btree ("guest_key");