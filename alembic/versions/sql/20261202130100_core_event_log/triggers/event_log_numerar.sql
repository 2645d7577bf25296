-- Numbers a transaction's events at its commit, in commit order (see core.event_log_numerar).
-- DEFERRABLE INITIALLY DEFERRED: fires at COMMIT, so the numbering lock is held only from
-- commit-time to commit, not while the producer's transaction is open.
DROP TRIGGER IF EXISTS event_log_numerar ON core.event_log;
CREATE CONSTRAINT TRIGGER event_log_numerar
    AFTER INSERT
    ON core.event_log
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    EXECUTE FUNCTION core.event_log_numerar();
