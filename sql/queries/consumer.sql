-- name: consumer_cursor_seed
-- A consumer's cursor (d2/eventlog/consumer.py), at the start of the log, where there is none yet.
WITH semeado AS (
    INSERT INTO d2.consumer_offset (tipo_evento, last_sequence)
    VALUES (%(tipo)s, 0)
    ON CONFLICT (tipo_evento) DO NOTHING
    RETURNING tipo_evento
)
INSERT INTO d2.consumer_offset_transacao (tipo_evento, last_sequence, last_transacao)
SELECT s.tipo_evento, 0, '0'::xid8 FROM semeado s
ON CONFLICT (tipo_evento) DO NOTHING;

-- name: consumer_cursor_lock
-- First statement of each event's transaction: the cursor row, locked, so that two
-- consumers never handle the same drawing. The position is read by the next statement,
-- whose snapshot sees what the lock's holder committed.
SELECT 1 FROM d2.consumer_offset WHERE tipo_evento = %(tipo)s FOR UPDATE;

-- name: consumer_cursor_passed
-- Whether the cursor is already at or past this event (another consumer handled it).
SELECT (p.transacao, p.sequencia) >= (%(transacao)s::text::xid8, %(seq)s::bigint) AS passou
FROM d2.consumer_posicao(%(tipo)s) p;
