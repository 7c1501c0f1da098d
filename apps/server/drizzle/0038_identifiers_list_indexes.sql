CREATE INDEX "identifiers_project_created" ON "identifiers" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "identifiers_name_prefix" ON "identifiers" USING btree ("project_id",lower("name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "identifiers_value_prefix" ON "identifiers" USING btree ("project_id",lower("value") text_pattern_ops);