-- Producers cannot choose or rewrite sequence_number (see core.event_log_proteger_sequencia).
DROP TRIGGER IF EXISTS event_log_proteger_sequencia ON core.event_log;
CREATE TRIGGER event_log_proteger_sequencia
    BEFORE INSERT OR UPDATE OF sequence_number
    ON core.event_log
    FOR EACH ROW
    EXECUTE FUNCTION core.event_log_proteger_sequencia();
