-- name: leader_session_settings
-- The leadership connection keeps one transaction open for as long as it leads: no
-- timeout may end it, whatever the role's or database's defaults; on TCP, keepalives
-- let the server notice a vanished leader (and free the lock) within about 25 s.
SELECT set_config('idle_in_transaction_session_timeout', '0', false),
       set_config('statement_timeout', '0', false),
       set_config('tcp_keepalives_idle', '10', false),
       set_config('tcp_keepalives_interval', '5', false),
       set_config('tcp_keepalives_count', '3', false);

-- name: leader_try_lock
-- One active worker per database: the lock on d2.worker_lideranca, which only d2_worker
-- (and the owner) may take, held by this connection's transaction; released when the
-- transaction or the connection ends (a killed worker frees it at once).
SELECT d2.lideranca_tentar() AS leader, pg_backend_pid() AS pid;

-- name: leader_check
-- The leadership connection still answers (it holds the lock while it does).
SELECT 1 AS ok;

-- name: leader_identify
-- On the writing connection: the session whose lock d2.consumer_offset_lideranca checks
-- at every cursor move.
SELECT set_config('d2.lideranca_pid', %(pid)s, false) AS pid;

-- name: leader_fence
-- A new leader waits here for a batch the previous leader may still be committing (it
-- holds this row), so it never reads a cursor that is about to move.
SELECT last_sequence FROM d2.consumer_offset WHERE tipo_evento = %(tipo)s FOR UPDATE;
