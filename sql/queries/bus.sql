-- name: bus_publicar
-- One event, inside the caller's transaction: a plain INSERT, as any producer writes it,
-- through the view that admits only D-2's types (d2.eventos_publicar).
INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, %(tipo)s, %(versao_schema)s, %(origem)s, %(correlacao_id)s,
        %(payload)s::jsonb);

-- name: bus_publicar_muitos
-- Many events of one type in one statement, from a JSON array of
-- {event_id, correlacao_id, payload}; their sequence numbers follow the order of the
-- array: the column's default is evaluated row by row, after the ORDER BY.
INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT (item.valor ->> 'event_id')::uuid, %(tipo)s, %(versao_schema)s, %(origem)s,
       (item.valor ->> 'correlacao_id')::uuid, item.valor -> 'payload'
FROM jsonb_array_elements(%(itens)s::jsonb) WITH ORDINALITY AS item (valor, posicao)
ORDER BY item.posicao;

-- name: bus_ler_desde
-- Events of some types after a position (transacao, sequence_number), in that order, gap
-- safe, with payloads over max_payload left out and the batch bounded by max_lote bytes:
-- see sql/functions/eventos_ler.sql.
SELECT sequence_number, event_id, tipo, versao_schema, origem, correlacao_id, payload,
       publicado_em, transacao, tamanho
FROM d2.eventos_ler(%(tipos)s::varchar[], %(transacao)s::text::xid8, %(apos)s::bigint,
                    %(limite)s::integer, %(max_payload)s::bigint, %(max_lote)s::bigint);

-- name: bus_ler_eventos
-- Committed events by event_id (to retry dead letters), in sequence order. The ids travel
-- as a binary parameter, much cheaper to write than a text array of many uuids.
SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem, e.correlacao_id,
       CASE WHEN octet_length(t.texto) <= %(max_payload)s THEN t.texto END AS payload,
       e.publicado_em, coalesce(e.transacao, '0'::xid8)::text::bigint AS transacao,
       octet_length(t.texto) AS tamanho
FROM d2.eventos e
CROSS JOIN LATERAL (SELECT e.payload::text AS texto OFFSET 0) t
WHERE e.event_id = ANY(%(event_ids)b::uuid[])
ORDER BY coalesce(e.transacao, '0'::xid8), e.sequence_number;

-- name: bus_cerca
-- What the readers' fence holds back now for one type, and for how long: see
-- sql/functions/eventos_cerca.sql.
SELECT retidos, atraso_s FROM d2.eventos_cerca(%(tipo)s::varchar);

-- name: bus_maior_sequencia_tipo
-- The highest sequence number of one type (0 when there is none).
SELECT coalesce(max(sequence_number), 0) AS maior
FROM d2.eventos
WHERE tipo = %(tipo)s;

-- name: bus_maior_sequencia
-- The highest sequence number of the events D-2 reads (0 when there is none).
SELECT coalesce(max(sequence_number), 0) AS maior FROM d2.eventos;

-- name: dlq_registrar
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

-- name: dlq_listar
-- Dead letters, oldest first, optionally of one consumer and/or one status.
SELECT id, consumidor, event_id, tipo, sequence_number, erro, tentativas, status,
       primeiro_erro_em, ultimo_erro_em, reprocessado_em
FROM d2.dead_letters
WHERE (%(consumidor)s::text IS NULL OR consumidor = %(consumidor)s::text)
  AND (%(status)s::text IS NULL OR status = %(status)s::text)
ORDER BY id
LIMIT %(limite)s;

-- name: dlq_marcar
-- Set the status of one consumer's dead letter; 'reprocessado' stamps reprocessado_em.
UPDATE d2.dead_letters
SET status = %(status)s::text,
    reprocessado_em = CASE WHEN %(status)s::text = 'reprocessado' THEN clock_timestamp()
                           ELSE reprocessado_em END
WHERE consumidor = %(consumidor)s AND event_id = %(event_id)s;

-- name: dlq_falhas_publicacao
-- A consumer's pending dead letters for publications that failed (spec 3.4/T9).
SELECT event_id
FROM d2.dead_letters
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND starts_with(erro, %(prefixo)s::text);

-- name: dlq_resolver
-- Mark a consumer's pending dead letters of these events resolved: their publication
-- went through.
UPDATE d2.dead_letters
SET status = 'reprocessado', reprocessado_em = clock_timestamp()
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND event_id = ANY(%(event_ids)s::uuid[]);
