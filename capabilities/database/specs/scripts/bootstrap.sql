-- A new database cluster, before its first start: entrypoint.sh (bootstrap_primary) feeds this
-- file to `postgres --single` on stdin, so nothing can connect before the roles exist. Single-user
-- mode ends a statement at a newline: one statement per line.
--
-- The app role's password is the content of the file the setting pgkeeper.app_password_file
-- names (postgres -c): PostgreSQL reads it (pg_read_file), so it is never SQL text and no one
-- quotes it but format(). {{...}} names a TypeScript constant (specs/layout.ts) that
-- hack/generate-scripts.ts writes in. roles.sql follows: the generator pastes it in place of the
-- line that includes it (single-user mode has no \ir).
CREATE ROLE {{APP_USER}} LOGIN;
DO $app_password$BEGIN EXECUTE format('ALTER ROLE {{APP_USER}} PASSWORD %L', pg_read_file(current_setting('pgkeeper.app_password_file'))); END$app_password$;
CREATE DATABASE {{APP_DATABASE}} OWNER {{APP_USER}};
\ir roles.sql
