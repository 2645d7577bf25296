-- name: bus_publicar
-- One event, inside the caller's transaction; numbered when that transaction commits.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, %(tipo)s, %(versao_schema)s, %(origem)s, %(correlacao_id)s,
        %(payload)s::jsonb);

-- name: bus_publicar_muitos
-- Many events of one type in one statement, from a JSON array of
-- {event_id, correlacao_id, payload}; ordem_insercao (hence the sequence order given at
-- commit) follows the order of the array: its default is evaluated row by row, after
-- the ORDER BY.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT (item.valor ->> 'event_id')::uuid, %(tipo)s, %(versao_schema)s, %(origem)s,
       (item.valor ->> 'correlacao_id')::uuid, item.valor -> 'payload'
FROM jsonb_array_elements(%(itens)s::jsonb) WITH ORDINALITY AS item (valor, posicao)
ORDER BY item.posicao;

-- name: bus_publicar_numerados
-- The same, numbered now (core.event_log_inserir_numerados): the caller commits next.
SELECT core.event_log_inserir_numerados(
    %(tipo)s, %(versao_schema)s, %(origem)s, %(itens)s::jsonb
) AS maior;

-- name: bus_ler_desde
-- Events of one type after a sequence number, in order (gap-safe: see event_log_numerar).
-- The payload comes as text: Python decodes it row by row, so one payload it cannot
-- read (nested too deep) becomes a dead letter instead of blocking the whole batch.
SELECT sequence_number, event_id, tipo, versao_schema, origem, correlacao_id,
       payload::text AS payload, publicado_em
FROM core.event_log
WHERE tipo = %(tipo)s AND sequence_number > %(apos)s
ORDER BY sequence_number
LIMIT %(limite)s;

-- name: bus_ler_eventos
-- Committed events by event_id (to retry dead letters), in sequence order. The ids travel
-- as a binary parameter, much cheaper to write than a text array of many uuids.
SELECT sequence_number, event_id, tipo, versao_schema, origem, correlacao_id,
       payload::text AS payload, publicado_em
FROM core.event_log
WHERE event_id = ANY(%(event_ids)b::uuid[]) AND sequence_number IS NOT NULL
ORDER BY sequence_number;

-- name: bus_maior_sequencia_tipo
-- The highest sequence number of one type (0 when there is none).
SELECT coalesce(max(sequence_number), 0) AS maior
FROM core.event_log
WHERE tipo = %(tipo)s;

-- name: bus_maior_sequencia
-- The highest sequence number of the whole log (0 when empty).
SELECT coalesce(max(sequence_number), 0) AS maior FROM core.event_log;

-- name: dlq_registrar
-- Record a consumer's failure on an event; the same event again counts one more try.
INSERT INTO core.dead_letter_queue AS d
    (consumidor, event_id, tipo, sequence_number, erro, primeiro_erro_em, ultimo_erro_em)
VALUES (%(consumidor)s, %(event_id)s, %(tipo)s, %(sequence_number)s, %(erro)s,
        clock_timestamp(), clock_timestamp())
ON CONFLICT (consumidor, event_id) DO UPDATE
SET tentativas = d.tentativas + 1,
    erro = EXCLUDED.erro,
    ultimo_erro_em = EXCLUDED.ultimo_erro_em,
    sequence_number = coalesce(EXCLUDED.sequence_number, d.sequence_number),
    status = 'pendente';

-- name: dlq_listar
-- Dead letters, oldest first, optionally of one consumer and/or one status.
SELECT id, consumidor, event_id, tipo, sequence_number, erro, tentativas, status,
       primeiro_erro_em, ultimo_erro_em, reprocessado_em
FROM core.dead_letter_queue
WHERE (%(consumidor)s::text IS NULL OR consumidor = %(consumidor)s::text)
  AND (%(status)s::text IS NULL OR status = %(status)s::text)
ORDER BY id
LIMIT %(limite)s;

-- name: dlq_marcar
-- Set the status of one consumer's dead letter; 'reprocessado' stamps reprocessado_em.
UPDATE core.dead_letter_queue
SET status = %(status)s::text,
    reprocessado_em = CASE WHEN %(status)s::text = 'reprocessado' THEN clock_timestamp()
                           ELSE reprocessado_em END
WHERE consumidor = %(consumidor)s AND event_id = %(event_id)s;
