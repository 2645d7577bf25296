-- name: session_setup
-- Every D-2 session: JIT off (it compiles big-looking plans for ~100 ms; our statements
-- run in milliseconds), and no WARNING from the resolver about changes waiting for the
-- mirror (d2.mirror_aviso): D-2's sessions apply them themselves (the worker at each
-- poll, commands before they answer) and say so.
SET jit = off;
SET d2.avisar_mirror = off;

-- name: session_timeouts_get
-- The session's lock and statement timeouts, to restore them after a bounded operation.
SELECT current_setting('lock_timeout') AS lock_timeout,
       current_setting('statement_timeout') AS statement_timeout;

-- name: session_timeouts_set
-- Bound the session's lock waits and statements (values as PostgreSQL reads them: '10s').
SELECT set_config('lock_timeout', %(lock_timeout)s, false),
       set_config('statement_timeout', %(statement_timeout)s, false);

-- name: transaction_statement_timeout
-- Bound each statement of the rest of this transaction (after a lock waited for under
-- lock_timeout alone, so that the lock's own bound is the one that fires).
SELECT set_config('statement_timeout', %(statement_timeout)s, true);

-- name: lock_holders
-- Who holds a lock on these tables, to name them when a lock wait passes its bound: the
-- sessions (not this one) holding a granted lock on one of them; a plain reader's ACCESS
-- SHARE, which blocks only a TRUNCATE or DDL, counts with leitores only. Every role sees
-- the pid, role, database and application of every session; how long its transaction
-- has run only where it may see more (its own role, pg_read_all_stats), else NULL.
SELECT l.pid,
       a.usename AS usuario,
       a.datname AS banco,
       a.application_name AS aplicacao,
       l.relation::regclass::text AS tabela,
       l.mode AS modo,
       extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS transacao_s
FROM pg_locks l
LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.granted
  AND l.locktype = 'relation'
  AND l.pid <> pg_backend_pid()
  AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
  AND l.relation = ANY (%(tabelas)s::regclass[])
  AND (%(leitores)s OR l.mode <> 'AccessShareLock')
ORDER BY tabela, l.pid;
