-- Where a consumer is in core.event_log: the last event it handled, as the readers'
-- (transacao, sequence_number) position (migration 20261203100000).
--
-- d2.consumer_offset.last_sequence names the event; d2.consumer_offset_transacao keeps
-- its transaction. When the two agree, that is the position. Without a recorded
-- transaction (a cursor from before the migration, or one inserted by hand) it is the
-- transaction of the event last_sequence names (0 for events from before the migration
-- and for a cursor at 0). When they disagree, last_sequence was moved by something other
-- than this code (an operator, or a worker of the previous version still running after
-- the migration, which compares sequence numbers only): the earlier of the two positions
-- is taken, because reading an event twice is absorbed by the consumer's idempotency and
-- skipping one is not.
CREATE OR REPLACE FUNCTION d2.consumer_posicao(
    p_tipo varchar, OUT transacao xid8, OUT sequencia bigint
)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH cursor AS (
        SELECT o.last_sequence AS s,
               coalesce(
                   (SELECT coalesce(e.transacao, '0'::xid8) FROM d2.eventos e
                    WHERE e.sequence_number = o.last_sequence),
                   '0'::xid8) AS t
        FROM d2.consumer_offset o
        WHERE o.tipo_evento = p_tipo
    ),
    gravada AS (
        SELECT g.last_sequence AS s, g.last_transacao AS t
        FROM d2.consumer_offset_transacao g
        WHERE g.tipo_evento = p_tipo
    )
    SELECT CASE WHEN g.s IS NULL THEN c.t
                WHEN g.s = c.s OR (g.t, g.s) < (c.t, c.s) THEN g.t
                ELSE c.t END,
           CASE WHEN g.s IS NULL OR (g.s <> c.s AND (c.t, c.s) < (g.t, g.s)) THEN c.s
                ELSE g.s END
    FROM cursor c
    LEFT JOIN gravada g ON true
$$;
