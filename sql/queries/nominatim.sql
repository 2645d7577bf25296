-- name: nominatim_web_role
-- Nominatim's import requires its web role to exist and be able to log in (pg_user).
SELECT rolcanlogin AS login FROM pg_roles WHERE rolname = %(papel)s;

-- name: nominatim_create_web_role
-- The web role for an embedded or test server: LOGIN because Nominatim's import checks
-- pg_user, CONNECTION LIMIT 0 because D-2 never connects as it (it queries Nominatim
-- with its own DSN), so nobody can. The role comes as a psycopg.sql.Identifier.
CREATE ROLE {} LOGIN CONNECTION LIMIT 0;

-- name: nominatim_drop_database
-- A rebuild starts from no database (Nominatim's import creates it). FORCE ends the
-- sessions of a worker querying it in process; they reconnect after the import.
-- The database comes as a psycopg.sql.Identifier.
DROP DATABASE IF EXISTS {} WITH (FORCE);

-- name: nominatim_database_exists
SELECT 1 AS existe FROM pg_database WHERE datname = %(banco)s;

-- name: nominatim_counts
-- What a Nominatim database holds: places, streets and houses, postcodes, its version.
SELECT (SELECT count(*) FROM placex) AS lugares,
       (SELECT count(*) FROM placex WHERE rank_search >= 26) AS ruas_e_casas,
       (SELECT count(*) FROM location_postcodes) AS ceps,
       (SELECT value FROM nominatim_properties WHERE property = 'database_version') AS versao;

-- name: nominatim_database_state
-- The database a `d2 nominatim import` would drop: whether it carries D-2's mark (the
-- comment D-2 writes after building it), who owns it, and whether the connected role may
-- drop it anyway (its owner or a superuser).
SELECT d.oid,
       coalesce(pg_catalog.shobj_description(d.oid, 'pg_database'), '') AS comentario,
       pg_catalog.pg_get_userbyid(d.datdba) AS dono,
       current_user AS eu,
       d.datistemplate AS modelo
FROM pg_catalog.pg_database d
WHERE d.datname = %(banco)s;

-- name: nominatim_cluster_id
-- Which cluster a connection reaches, whatever host name, socket or port led to it:
-- two URLs name the same database when the cluster and the database's name agree.
SELECT system_identifier::text AS sistema FROM pg_catalog.pg_control_system();

-- name: nominatim_database_check
-- A database holding D-2's schema or a monolith's event log is never Nominatim's.
SELECT pg_catalog.to_regnamespace('d2') IS NOT NULL
       OR pg_catalog.to_regclass('core.event_log') IS NOT NULL AS ocupado;

-- name: nominatim_mark_database
-- D-2's mark on the Nominatim database it built: only a database so marked is dropped
-- by the next `d2 nominatim import` without --force. The database and the text come as
-- psycopg.sql.Identifier and Literal (COMMENT takes no bound parameters).
COMMENT ON DATABASE {} IS {};
