-- Fencing for the leadership lock (d2.lideranca_tentar): the leader writes on one
-- connection and holds the lock on another, so when only the lock's connection dies a
-- standby may take over while the old leader still has a batch in hand. The old
-- leader's batch moves the cursor (an UPDATE of its d2.consumer_offset row) before it
-- commits; this trigger then checks, under that row lock, that the session named by
-- the setting d2.lideranca_pid still holds the lock, and fails the batch (SQLSTATE
-- 40D2L, d2/db.py: transient, never retried in place: the worker goes back to standby,
-- and the batch's events are left to the new leader, not dead-lettered) when it does not. The
-- new leader first locks the same row (sql/queries/worker.sql, leader_fence), so it
-- either waits for the old batch to commit or the old batch sees the lock gone.
-- Sessions that do not set d2.lideranca_pid (operators, other consumers) are not checked.
CREATE OR REPLACE FUNCTION d2.consumer_offset_lideranca()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lider text := current_setting('d2.lideranca_pid', true);
BEGIN
    IF coalesce(lider, '') = '' THEN
        RETURN NULL;
    END IF;
    IF NOT EXISTS (
        SELECT 1
        FROM pg_catalog.pg_locks l
        WHERE l.locktype = 'relation'
          AND l.relation = 'd2.worker_lideranca'::regclass
          AND l.mode = 'ExclusiveLock'
          AND l.granted
          AND l.pid = lider::integer
    ) THEN
        RAISE EXCEPTION 'd2: liderança perdida: a sessão % não segura mais o lock', lider
            USING ERRCODE = '40D2L';
    END IF;
    RETURN NULL;
END
$$;
