-- Producers never choose a sequence_number (DESIGN decision 6). A new row always
-- starts unnumbered: core.event_log_numerar() gives it its number at commit. Once a
-- number is set it can change only inside core.event_log_numerar(), which raises the
-- transaction-local flag d2.numerando_event_log around its UPDATE; a producer that
-- updated its own row's number before commit would otherwise dodge the commit-ordered
-- assignment and could be read out of order.
CREATE OR REPLACE FUNCTION core.event_log_proteger_sequencia()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.sequence_number := NULL;
        RETURN NEW;
    END IF;
    IF NEW.sequence_number IS DISTINCT FROM OLD.sequence_number
       AND current_setting('d2.numerando_event_log', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION 'core.event_log.sequence_number is assigned by the database at commit'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'insert without sequence_number; it is numbered when the transaction commits';
    END IF;
    RETURN NEW;
END
$$;
