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
-- Who holds a lock on these tables or their indexes, to name them when a lock wait passes
-- its bound: the sessions (not this one) holding a granted lock on one of them, one row
-- per session and mode; a plain reader's ACCESS SHARE, which blocks only a TRUNCATE, a
-- REINDEX or DDL, counts with leitores, or when it blocks a session waiting for a lock
-- there (pg_blocking_pids). Every role sees the pid, role, database and application of
-- every session; how long its transaction has run only where it may see more (its own
-- role, pg_read_all_stats), else NULL.
WITH alvos AS (
    SELECT t.oid FROM unnest(%(tabelas)s::regclass[]) t (oid)
    UNION
    SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = ANY (%(tabelas)s::regclass[])
), travas AS (
    SELECT l.* FROM pg_locks l
    WHERE l.locktype = 'relation'
      AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
      AND l.relation IN (SELECT a.oid FROM alvos a)
), bloqueando AS (
    SELECT DISTINCT unnest(pg_blocking_pids(w.pid)) AS pid
    FROM travas w
    WHERE NOT w.granted
)
SELECT l.pid,
       min(a.usename) AS usuario,
       min(a.datname) AS banco,
       min(a.application_name) AS aplicacao,
       string_agg(l.relation::regclass::text, ', ' ORDER BY l.relation::regclass::text)
           AS tabela,
       l.mode AS modo,
       min(extract(epoch FROM clock_timestamp() - a.xact_start))::float8 AS transacao_s
FROM travas l
LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.granted
  AND l.pid <> pg_backend_pid()
  AND (%(leitores)s OR l.mode <> 'AccessShareLock' OR l.pid IN (SELECT b.pid FROM bloqueando b))
GROUP BY l.pid, l.mode
ORDER BY tabela, l.pid;
