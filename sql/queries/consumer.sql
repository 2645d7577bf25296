-- The cursors of D-2's consumers of core.event_log (d2.consumer_offset, with its
-- transaction in d2.consumer_offset_transacao), written only here and only through
-- d2/eventlog/consumer.py: the demand worker's, the citizen drawings' and the replica's.

-- name: cursor_seed
-- A consumer's cursor where there is none yet, never overwriting one. At the start of the
-- log when %(no_inicio)s (a consumer that takes what was published before it first ran);
-- otherwise at the last event readers can see now (below the snapshot's xmin, see
-- bus_read_since), as the demand worker's boot does (spec 4.4).
WITH ultimo AS (
    SELECT u.transacao, u.sequence_number FROM d2.eventos_ultimo_visivel(%(tipo)s::varchar) u
    WHERE NOT %(no_inicio)s::boolean
),
semeado AS (
    INSERT INTO d2.consumer_offset (tipo_evento, last_sequence)
    VALUES (%(tipo)s, coalesce((SELECT u.sequence_number FROM ultimo u), 0))
    ON CONFLICT (tipo_evento) DO NOTHING
    RETURNING tipo_evento, last_sequence
)
INSERT INTO d2.consumer_offset_transacao (tipo_evento, last_sequence, last_transacao)
SELECT s.tipo_evento, s.last_sequence,
       coalesce((SELECT u.transacao FROM ultimo u), '0'::xid8)
FROM semeado s
ON CONFLICT (tipo_evento) DO UPDATE
SET last_sequence = EXCLUDED.last_sequence, last_transacao = EXCLUDED.last_transacao
WHERE NOT %(no_inicio)s::boolean;

-- name: cursor_get
-- Where the consumer is: the last event it handled, as (transacao, sequence); see
-- d2.consumer_posicao.
SELECT p.sequencia AS last_sequence, p.transacao::text::bigint AS last_transacao
FROM d2.consumer_posicao(%(tipo)s) p
WHERE p.sequencia IS NOT NULL;

-- name: cursor_advance
-- Move the cursor forward only, in the readers' (transacao, sequence) order: a DLQ
-- retry of an old event must not move it back. updated_at says a batch was handled.
WITH atual AS (
    SELECT (%(transacao)s::text::xid8, %(seq)s::bigint) > (p.transacao, p.sequencia) AS avanca
    FROM d2.consumer_posicao(%(tipo)s) p
),
movido AS (
    UPDATE d2.consumer_offset o
    SET last_sequence = CASE WHEN a.avanca THEN %(seq)s::bigint ELSE o.last_sequence END,
        updated_at = CURRENT_TIMESTAMP
    FROM atual a
    WHERE o.tipo_evento = %(tipo)s
    RETURNING o.tipo_evento, a.avanca
)
INSERT INTO d2.consumer_offset_transacao (tipo_evento, last_sequence, last_transacao)
SELECT m.tipo_evento, %(seq)s::bigint, %(transacao)s::text::xid8
FROM movido m
WHERE m.avanca
ON CONFLICT (tipo_evento) DO UPDATE
SET last_sequence = EXCLUDED.last_sequence, last_transacao = EXCLUDED.last_transacao;

-- name: cursor_set
-- Put a cursor at a sequence number, in either direction (the benchmarks: the events
-- after it are their backlog). Only last_sequence: d2.consumer_posicao takes the earlier
-- of it and a recorded transaction's position.
INSERT INTO d2.consumer_offset (tipo_evento, last_sequence)
VALUES (%(tipo)s, %(seq)s)
ON CONFLICT (tipo_evento) DO UPDATE SET last_sequence = EXCLUDED.last_sequence;

-- name: cursor_lock
-- First statement of each event's transaction: the cursor row, locked, so that two
-- consumers never handle the same drawing. The position is read by the next statement,
-- whose snapshot sees what the lock's holder committed.
SELECT 1 FROM d2.consumer_offset WHERE tipo_evento = %(tipo)s FOR UPDATE;

-- name: cursor_passed
-- Whether the cursor is already at or past this event (another consumer handled it).
SELECT (p.transacao, p.sequencia) >= (%(transacao)s::text::xid8, %(seq)s::bigint) AS passou
FROM d2.consumer_posicao(%(tipo)s) p;
