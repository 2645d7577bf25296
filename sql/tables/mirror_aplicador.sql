-- The appliers' lock (migration 20261204130000): whoever applies the recorded changes to
-- the mirror or rebuilds it (d2/territorio/mirror.py, d2.mirror_aplicar,
-- d2.mirror_rebuild) holds an EXCLUSIVE lock on this empty table for its transaction,
-- taken as that transaction's first statement: LOCK TABLE takes no snapshot, so the
-- REPEATABLE READ snapshot of the apply comes after the lock, and sees everything the
-- previous applier committed. A table lock and not an advisory lock, because LOCK TABLE
-- in this mode needs UPDATE on the table, granted to d2_worker only (sql/grants.sql),
-- while anyone who can connect may take any advisory lock and so freeze the mirror.
-- Readers with SELECT take at most ACCESS SHARE, which does not conflict. No columns,
-- no rows.
CREATE TABLE d2.mirror_aplicador ();

COMMENT ON TABLE d2.mirror_aplicador IS
    'D-2: the applier at work holds an EXCLUSIVE lock on this table (no rows)';
