-- Worker leadership (migration 20261203120010): the active worker holds an EXCLUSIVE
-- lock on this empty table (d2.lideranca_tentar), on a connection of its own, for as
-- long as it leads; standbys wait. A table lock and not an advisory lock, because LOCK
-- TABLE in this mode needs UPDATE on it, granted to d2_worker only (sql/grants.sql),
-- while anyone who can connect may take any advisory lock. No columns, no rows.
CREATE TABLE d2.worker_lideranca ();

COMMENT ON TABLE d2.worker_lideranca IS
    'D-2: the active worker holds an EXCLUSIVE lock on this table (no rows)';
