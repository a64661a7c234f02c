-- The roles pgkeeper keeps in every database cluster, each with what its holder needs and nothing
-- more (ADR 0017 and 0019). Both log in by certificate only (pg_hba.conf); neither has a
-- password. The functions live in the schema `pgkeeper`, which nobody else may use; its comment
-- says which version of this setup ran to the end (specs/roles.ts, ROLES_CURRENT_SQL).
--
-- Safe to run again, and run by three: bootstrap.sql (a new cluster, in single-user mode),
-- recovery.sql (a cluster restored from a backup, with psql) and the operator, statement by
-- statement (specs/roles.ts), on a primary whose setup is missing or older. Hence one statement
-- per line (single-user mode ends a statement at a newline), comments on lines of their own (the
-- operator drops them) and nothing psql-only. {{...}} names a TypeScript constant
-- (specs/layout.ts) that hack/generate-scripts.ts writes in.

-- Each role a cluster lacks. One statement (the operator's CREATE_MISSING_ROLES), and first.
DO $create_missing_roles$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{{REPLICATION_USER}}') THEN CREATE ROLE {{REPLICATION_USER}}; END IF; IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{{MONITOR_USER}}') THEN CREATE ROLE {{MONITOR_USER}}; END IF; END$create_missing_roles$;

-- streaming_replica: standbys stream, clone and rewind as it. The four functions pg_rewind reads
-- the source's files with (PostgreSQL's documented minimum for a rewind without the superuser).
ALTER ROLE {{REPLICATION_USER}} LOGIN REPLICATION NOSUPERUSER;
GRANT EXECUTE ON FUNCTION pg_catalog.pg_ls_dir(text, boolean, boolean) TO {{REPLICATION_USER}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_stat_file(text, boolean) TO {{REPLICATION_USER}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_binary_file(text) TO {{REPLICATION_USER}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean) TO {{REPLICATION_USER}};

-- pgkeeper_monitor: the operator's everyday identity (the probe every second, promotion,
-- checkpoint, reload, the repair request). pg_monitor is every statistic and setting it reads.
ALTER ROLE {{MONITOR_USER}} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD NULL;
GRANT pg_monitor TO {{MONITOR_USER}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_promote(boolean, integer) TO {{MONITOR_USER}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_reload_conf() TO {{MONITOR_USER}};

CREATE SCHEMA IF NOT EXISTS pgkeeper;
REVOKE ALL ON SCHEMA pgkeeper FROM PUBLIC;
GRANT USAGE ON SCHEMA pgkeeper TO {{REPLICATION_USER}}, {{MONITOR_USER}};

-- SECURITY DEFINER functions for what PostgreSQL grants no narrower way, each callable by its
-- grantees only, running as its owner with a fixed search path. The operator takes the bodies of
-- the last two by their dollar-quote tags (specs/roles.ts) and runs them as the superuser on a
-- cluster that lacks the functions.
--
-- CHECKPOINT (14 has no pg_checkpoint role): a former primary runs it on the new one before
-- pg_rewind, so a just-promoted primary shows its new timeline.
CREATE OR REPLACE FUNCTION {{CHECKPOINT_FUNCTION}} RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $checkpoint$BEGIN CHECKPOINT; END$checkpoint$;
REVOKE ALL ON FUNCTION {{CHECKPOINT_FUNCTION}} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION {{CHECKPOINT_FUNCTION}} TO {{REPLICATION_USER}}, {{MONITOR_USER}};
-- Whether pg_hba.conf or a TLS file changed on disk since the configuration was last loaded
-- (pg_stat_file on an absolute path would need pg_read_server_files, which reads any file, keys
-- included). Its times are whole seconds: a file changed in the second of the last load counts as
-- changed (at worst one reload too many, never one too few); a missing file counts for nothing.
CREATE OR REPLACE FUNCTION {{FILES_CHANGED_FUNCTION}} RETURNS boolean LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $files_changed$SELECT max(m) >= date_trunc('second', pg_conf_load_time()) FROM (SELECT (pg_stat_file(current_setting(name), true)).modification AS m FROM unnest(ARRAY['hba_file', 'ssl_cert_file', 'ssl_key_file', 'ssl_ca_file']) AS name) AS files$files_changed$;
REVOKE ALL ON FUNCTION {{FILES_CHANGED_FUNCTION}} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION {{FILES_CHANGED_FUNCTION}} TO {{MONITOR_USER}};
-- The repair request: the marker in a replica's data directory (COPY TO a file would need
-- pg_write_server_files, which writes any file, so equals a superuser; COPY wants an absolute
-- path).
CREATE OR REPLACE FUNCTION {{REPAIR_FUNCTION}} RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $repair$BEGIN IF NOT pg_is_in_recovery() THEN RAISE EXCEPTION 'not in recovery: only a replica is repaired'; END IF; EXECUTE format('COPY (SELECT now()::text) TO %L', current_setting('data_directory') || '/{{FILE_REPAIR_MARKER}}'); END$repair$;
REVOKE ALL ON FUNCTION {{REPAIR_FUNCTION}} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION {{REPAIR_FUNCTION}} TO {{MONITOR_USER}};

-- Last: it says the whole setup ran.
COMMENT ON SCHEMA pgkeeper IS '{{ROLES_VERSION}}';
