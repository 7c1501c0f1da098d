CREATE INDEX "audit_events_project_created" ON "audit_events" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_project_user" ON "audit_events" USING btree ("project_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_project_entity" ON "audit_events" USING btree ("project_id","entity","entity_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_project_request" ON "audit_events" USING btree ("project_id","request_id");