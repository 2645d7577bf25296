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
