-- Gap-safe numbering of core.event_log by commit order (DESIGN decision 6).
--
-- Fired by the DEFERRABLE INITIALLY DEFERRED constraint trigger event_log_numerar, i.e.
-- at COMMIT, once per row inserted. The first firing in a transaction numbers all of
-- that transaction's rows in one UPDATE; the later firings see their row numbered and
-- return at once.
--
-- Why a reader never skips an event: numbers are handed out only while holding one
-- transaction-level advisory lock, and that lock is released only after the commit is
-- visible (PostgreSQL marks the transaction committed in the proc array before it
-- releases its locks). So if transaction B holds numbers above transaction A's, B took
-- the lock after A let it go, i.e. after A's commit was already visible; any snapshot
-- that sees B's rows therefore also sees A's. A reader that has seen sequence S has
-- already been able to see everything numbered below S, and "sequence_number > S" can
-- never miss a row that commits later. A transaction that aborts after numbering
-- (a later deferred trigger failing) leaves a hole that never fills, which is harmless:
-- nothing is skipped, a number is just never used.
--
-- Which rows are "ours": under the lock, the only rows with sequence_number IS NULL this
-- transaction can see are its own. Other transactions' uncommitted rows are invisible,
-- and every committed row was numbered before its commit. This holds at every isolation
-- level (an older snapshot only hides rows, and hidden rows are not ours either).
--
-- Lock hold time: from this transaction's commit-time triggers to its commit, never
-- while a producer sits idle in an open transaction after inserting (unless it asked
-- for SET CONSTRAINTS ... IMMEDIATE, which takes the lock early and keeps it).
--
-- The numbers come from core.event_log_numeracao_seq as one contiguous block:
-- nextval gives the first, setval moves the sequence past the last. Only holders of the
-- lock touch that sequence, so nobody can take a number in the middle of the block.
--
-- One pg_notify per transaction, carrying the highest number assigned: NOTIFY wakes,
-- the table decides (readers poll too, so a lost notification only delays).
--
-- SECURITY DEFINER: an upstream producer needs only INSERT on core.event_log.
CREATE OR REPLACE FUNCTION core.event_log_numerar()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    -- Fixed key of the numbering lock: 'd2_evlg' in ASCII (0x64325f65766c67).
    chave CONSTANT bigint := 28202882976607335;
    maior bigint;
    quantos bigint;
BEGIN
    -- NEW is the row as inserted (unnumbered); the table says whether an earlier firing
    -- in this transaction already numbered it. A row deleted since is gone: nothing to do.
    PERFORM 1 FROM core.event_log
    WHERE event_id = NEW.event_id AND sequence_number IS NULL;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;

    PERFORM pg_advisory_xact_lock(chave);
    PERFORM set_config('d2.numerando_event_log', 'on', true);

    WITH minhas AS (
        SELECT event_id, row_number() OVER (ORDER BY ordem_insercao, event_id) AS posicao
        FROM core.event_log
        WHERE sequence_number IS NULL
    ),
    bloco AS (
        SELECT nextval('core.event_log_numeracao_seq') AS primeiro
    ),
    numeradas AS (
        UPDATE core.event_log AS e
        SET sequence_number = bloco.primeiro + minhas.posicao - 1
        FROM minhas, bloco
        WHERE e.event_id = minhas.event_id AND e.sequence_number IS NULL
        RETURNING e.sequence_number
    )
    SELECT max(sequence_number), count(*) INTO maior, quantos FROM numeradas;

    PERFORM set_config('d2.numerando_event_log', 'off', true);
    IF quantos > 1 THEN
        PERFORM setval('core.event_log_numeracao_seq', maior, true);
    END IF;
    IF quantos > 0 THEN
        PERFORM pg_notify('core_event_log', maior::text);
    END IF;
    RETURN NULL;
END
$$;
