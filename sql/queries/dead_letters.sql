-- name: dlq_record
-- Record a consumer's failure on an event; the same event again counts one more try.
INSERT INTO d2.dead_letters AS d
    (consumidor, event_id, tipo, sequence_number, erro, primeiro_erro_em, ultimo_erro_em)
VALUES (%(consumidor)s, %(event_id)s, %(tipo)s, %(sequence_number)s, %(erro)s,
        clock_timestamp(), clock_timestamp())
ON CONFLICT (consumidor, event_id) DO UPDATE
SET tentativas = d.tentativas + 1,
    erro = EXCLUDED.erro,
    ultimo_erro_em = EXCLUDED.ultimo_erro_em,
    sequence_number = coalesce(EXCLUDED.sequence_number, d.sequence_number),
    status = 'pendente';

-- name: dlq_list
-- Dead letters, oldest first, optionally of one consumer and/or one status.
SELECT id, consumidor, event_id, tipo, sequence_number, erro, tentativas, status,
       primeiro_erro_em, ultimo_erro_em, reprocessado_em
FROM d2.dead_letters
WHERE (%(consumidor)s::text IS NULL OR consumidor = %(consumidor)s::text)
  AND (%(status)s::text IS NULL OR status = %(status)s::text)
ORDER BY id
LIMIT %(limite)s;

-- name: dlq_mark
-- Set the status of one consumer's dead letter; 'reprocessado' stamps reprocessado_em.
UPDATE d2.dead_letters
SET status = %(status)s::text,
    reprocessado_em = CASE WHEN %(status)s::text = 'reprocessado' THEN clock_timestamp()
                           ELSE reprocessado_em END
WHERE consumidor = %(consumidor)s AND event_id = %(event_id)s;

-- name: dlq_publish_failures
-- A consumer's pending dead letters for publications that failed (spec 3.4/T9).
SELECT event_id
FROM d2.dead_letters
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND starts_with(erro, %(prefixo)s::text);

-- name: dlq_resolve
-- Mark a consumer's pending dead letters of these events resolved: their publication
-- went through.
UPDATE d2.dead_letters
SET status = 'reprocessado', reprocessado_em = clock_timestamp()
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND event_id = ANY(%(event_ids)s::uuid[]);
