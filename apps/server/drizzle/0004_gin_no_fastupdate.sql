-- Groups are read on every scoped query and written rarely: no GIN pending list, so lookups never scan one.
DROP INDEX "groups_path";--> statement-breakpoint
CREATE INDEX "groups_path" ON "groups" USING gin ("path") WITH (fastupdate=false);