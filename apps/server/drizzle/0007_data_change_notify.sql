-- Every write to a table that cached reads depend on tells every server instance, through
-- NOTIFY on the atrium_data channel, which table changed; each instance then drops its cached
-- signed-in users and list answers (core/read-cache.ts). Statement-level, so a bulk import
-- notifies once per statement, and NOTIFY is delivered only when the transaction commits.
-- Log-like tables that no cached read uses are left out; a test checks that every other table
-- has the trigger, so a new table cannot be forgotten. drizzle-kit cannot express triggers, so
-- this migration is written by hand.
CREATE OR REPLACE FUNCTION atrium_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('atrium_data', TG_TABLE_NAME);
  RETURN NULL;
END
$$;--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public'
    AND tablename NOT IN ('audit_events', 'login_failures', 'mail_outbox', 'refresh_tokens', 'user_tokens')
  LOOP
    EXECUTE format('CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed()', t);
  END LOOP;
END
$$;
