-- name: leader_try_lock
-- One active worker per database: a session advisory lock, released when its
-- connection ends (a killed worker frees it at once).
SELECT pg_try_advisory_lock(hashtext('d2.worker.demanda.normalizada')::bigint) AS leader;

-- name: leader_unlock
-- Give the leadership up (clean shutdown).
SELECT pg_advisory_unlock(hashtext('d2.worker.demanda.normalizada')::bigint) AS released;
