-- Tries to become the active worker: an EXCLUSIVE lock on d2.worker_lideranca, held by
-- the caller's transaction until it ends (the worker keeps that transaction open on a
-- connection of its own for as long as it leads). True when taken, false at once when
-- another worker holds it.
--
-- Why a table lock and not an advisory lock: anyone who can connect may take any
-- advisory lock, and so keep every worker in standby. LOCK TABLE in this mode needs
-- UPDATE on the table, granted only to d2_worker (sql/grants.sql). It takes no
-- transaction id and the idle transaction holds no snapshot, so VACUUM is not held back;
-- EXCLUSIVE lets plain reads of the (empty) table through, pg_dump included.
CREATE OR REPLACE FUNCTION d2.lideranca_tentar()
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    LOCK TABLE d2.worker_lideranca IN EXCLUSIVE MODE NOWAIT;
    RETURN true;
EXCEPTION WHEN lock_not_available THEN
    RETURN false;
END
$$;
