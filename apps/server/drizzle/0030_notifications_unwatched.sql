-- Notifications are written with every conversation message, announce recipient, device event and
-- alarm, and no cached read depends on them (core/read-cache.ts caches signed-in users and lists of
-- users, groups, roles and domain types). Their change-feed NOTIFY made every writing transaction
-- take PostgreSQL's notify-queue lock through its commit, so those commits (and their WAL flushes)
-- ran one at a time: about 200 a second on a 2-core machine, against 1,200 without (issue 13).
DROP TRIGGER IF EXISTS atrium_data_changed ON "notifications";
