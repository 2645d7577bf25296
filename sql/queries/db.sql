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
