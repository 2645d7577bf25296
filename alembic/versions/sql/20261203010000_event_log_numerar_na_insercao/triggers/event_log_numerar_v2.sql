-- Version 2 of the trigger event_log_numerar (migration 20261203010000): only rows that
-- arrive unnumbered queue a commit-time firing. A constraint trigger's WHEN is evaluated
-- when the row is inserted, after the BEFORE triggers, so rows numbered as they were
-- inserted (core.event_log_inserir_numerados) cost nothing at commit.
DROP TRIGGER IF EXISTS event_log_numerar ON core.event_log;
CREATE CONSTRAINT TRIGGER event_log_numerar
    AFTER INSERT
    ON core.event_log
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (NEW.sequence_number IS NULL)
    EXECUTE FUNCTION core.event_log_numerar();
