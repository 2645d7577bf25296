-- Version 2 of core.event_log_proteger_sequencia (applied by migration 20261203010000):
-- a transaction may also be numbered as it inserts, under the numbering lock.
--
-- Producers never choose a sequence_number (DESIGN decision 6). A new row starts
-- unnumbered and core.event_log_numerar() numbers it at commit, unless the inserting
-- transaction raised the local flag d2.numerar_na_insercao (core.event_log_inserir_numerados
-- does, around its one INSERT): then the row takes the next number now, and this trigger
-- first takes the numbering lock, which stays held until the transaction ends. That is
-- the same rule event_log_numerar keeps (numbers are handed out only under the lock, and
-- the lock goes only after the commit is visible), so a reader still never skips: it
-- just starts earlier. Whoever raises the flag gets a number from the sequence, never
-- one of its choosing; the cost of raising it carelessly is holding the lock, i.e.
-- delaying other producers' commits, not losing events.
--
-- Once a number is set it can change only inside core.event_log_numerar(), which raises
-- the flag d2.numerando_event_log around its UPDATE; a producer that updated its own
-- row's number before commit would otherwise dodge the commit-ordered assignment.
--
-- SECURITY DEFINER: the sequence is not the producers' to use.
CREATE OR REPLACE FUNCTION core.event_log_proteger_sequencia()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF current_setting('d2.numerar_na_insercao', true) = 'on' THEN
            -- The lock of core.event_log_numerar ('d2_evlg'); re-entrant, so once per
            -- row costs a lookup in the backend's own lock table.
            PERFORM pg_advisory_xact_lock(28202882976607335);
            NEW.sequence_number := nextval('core.event_log_numeracao_seq');
        ELSE
            NEW.sequence_number := NULL;
        END IF;
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
