-- Written by hand (issue 14, licences): the tables of licences are in 0018 (generated there while both areas worked);
-- installed licences feed cached reads; license_usage and license_notices are written by the licence worker and stay out of the change feed.
CREATE TRIGGER atrium_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "licenses" FOR EACH STATEMENT EXECUTE FUNCTION atrium_data_changed();
