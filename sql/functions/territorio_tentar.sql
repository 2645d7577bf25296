-- Counts one more attempt at evaluating a drawing, in the caller's own short transaction,
-- before the evaluation starts (d2/territorio/comunitario.py): an evaluation that never
-- ends (a killed worker whose backend goes on, a crash) is still counted, and past the
-- allowed attempts the consumer dead-letters the event instead of trying again forever.
-- Returns the attempts so far, this one included; NULL for an event that is not a
-- lugar.cadastrado (nothing is recorded for it). SECURITY DEFINER, like
-- d2.territorio_avaliar: the worker's role writes no verdict itself.
CREATE OR REPLACE FUNCTION d2.territorio_tentar(p_event_id uuid)
RETURNS integer
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
    INSERT INTO d2.territorio_avaliacoes AS a (event_id, tentativas)
    SELECT e.event_id, 1
    FROM core.event_log e
    WHERE e.event_id = p_event_id AND e.tipo = 'lugar.cadastrado'
    ON CONFLICT (event_id) DO UPDATE SET tentativas = a.tentativas + 1
    RETURNING a.tentativas
$$;
