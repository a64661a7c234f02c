-- A cluster restored from a backup (bootstrap.recovery), promoted and not yet this Database's:
-- entrypoint.sh (bootstrap_from_backup) runs this file with `psql -v ON_ERROR_STOP=1 -f`. It
-- sets this Database's passwords, not the source's, makes the app role and database when the
-- source had none, and sets up pgkeeper's roles.
--
-- The passwords are the contents of the files the psql variables superuser_password_file and
-- app_password_file name (psql -v): PostgreSQL reads them (pg_read_file), so they are never SQL
-- text and no one quotes them but format(). The statements \gexec runs hold them, hence no
-- statement logging. {{...}} names a TypeScript constant (specs/layout.ts) that
-- hack/generate-scripts.ts writes in. roles.sql follows: the generator pastes it in place of the
-- line that includes it.
SET log_statement = 'none';
SET log_min_error_statement = 'panic';
SELECT format('ALTER ROLE {{SUPERUSER}} PASSWORD %L', pg_read_file(:'superuser_password_file'))
\gexec
SELECT 'CREATE ROLE {{APP_USER}} LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{{APP_USER}}')
\gexec
SELECT format('ALTER ROLE {{APP_USER}} LOGIN PASSWORD %L', pg_read_file(:'app_password_file'))
\gexec
SELECT 'CREATE DATABASE {{APP_DATABASE}} OWNER {{APP_USER}}' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{{APP_DATABASE}}')
\gexec
\ir roles.sql
