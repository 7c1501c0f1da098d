-- Prefix searches on users page through these indexes alone (index-only scans): they carry the
-- sort key and the id. drizzle-kit cannot express INCLUDE, so this migration is written by hand;
-- users.table.ts declares the same indexes without it.
DROP INDEX IF EXISTS "users_name_prefix";--> statement-breakpoint
CREATE INDEX "users_name_prefix" ON "users" USING btree ("project_id", lower("name") text_pattern_ops) INCLUDE ("name", "id");--> statement-breakpoint
DROP INDEX IF EXISTS "users_login_prefix";--> statement-breakpoint
CREATE INDEX "users_login_prefix" ON "users" USING btree ("project_id", lower("login") text_pattern_ops) INCLUDE ("login", "id");
