-- name: bus_publicar
-- One event, inside the caller's transaction: a plain INSERT, as any producer writes it.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, %(tipo)s, %(versao_schema)s, %(origem)s, %(correlacao_id)s,
        %(payload)s::jsonb);

-- name: bus_publicar_muitos
-- Many events of one type in one statement, from a JSON array of
-- {event_id, correlacao_id, payload}; their sequence numbers follow the order of the
-- array: the column's default is evaluated row by row, after the ORDER BY.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT (item.valor ->> 'event_id')::uuid, %(tipo)s, %(versao_schema)s, %(origem)s,
       (item.valor ->> 'correlacao_id')::uuid, item.valor -> 'payload'
FROM jsonb_array_elements(%(itens)s::jsonb) WITH ORDINALITY AS item (valor, posicao)
ORDER BY item.posicao;

-- name: bus_ler_desde
-- Events of one type after a position (transacao, sequence_number), in that order, and
-- only from transactions below the statement's own snapshot xmin: every transaction
-- below it has finished, and a new one always gets a higher id, so no event can later
-- appear behind what was read (gap safety without touching the producers). Events
-- inserted before migration 20261203100000 have transacao NULL and read as 0. The
-- position's transacao, when not given, is that of the event numbered apos.
-- Payloads whose text exceeds max_payload come without it (NULL, with their size), and
-- the batch stops before max_lote bytes of payloads (one event at least): a huge
-- payload is never sent to the worker.
WITH candidatos AS MATERIALIZED (
    SELECT e.sequence_number, coalesce(e.transacao, '0'::xid8) AS transacao,
           octet_length(t.texto) AS tamanho,
           CASE WHEN octet_length(t.texto) <= %(max_payload)s THEN t.texto END AS texto
    FROM core.event_log e
    CROSS JOIN LATERAL (SELECT e.payload::text AS texto OFFSET 0) t
    WHERE e.tipo = %(tipo)s
      AND (coalesce(e.transacao, '0'::xid8), e.sequence_number) > (
          coalesce(
              %(transacao)s::text::xid8,
              (SELECT coalesce(a.transacao, '0'::xid8) FROM core.event_log a
               WHERE a.sequence_number = %(apos)s),
              '0'::xid8),
          %(apos)s::bigint)
      AND coalesce(e.transacao, '0'::xid8) < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY coalesce(e.transacao, '0'::xid8), e.sequence_number
    LIMIT %(limite)s
),
medidos AS (
    SELECT c.*,
           row_number() OVER w AS ordem,
           sum(coalesce(octet_length(c.texto), 0)) OVER w AS acumulado
    FROM candidatos c
    WINDOW w AS (ORDER BY c.transacao, c.sequence_number)
)
SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem, e.correlacao_id,
       m.texto AS payload, e.publicado_em, m.transacao::text::bigint AS transacao,
       m.tamanho
FROM medidos m
JOIN core.event_log e ON e.sequence_number = m.sequence_number
WHERE m.ordem = 1 OR m.acumulado <= %(max_lote)s
ORDER BY m.transacao, m.sequence_number;

-- name: bus_ler_eventos
-- Committed events by event_id (to retry dead letters), in sequence order. The ids travel
-- as a binary parameter, much cheaper to write than a text array of many uuids.
SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem, e.correlacao_id,
       CASE WHEN octet_length(t.texto) <= %(max_payload)s THEN t.texto END AS payload,
       e.publicado_em, coalesce(e.transacao, '0'::xid8)::text::bigint AS transacao,
       octet_length(t.texto) AS tamanho
FROM core.event_log e
CROSS JOIN LATERAL (SELECT e.payload::text AS texto OFFSET 0) t
WHERE e.event_id = ANY(%(event_ids)b::uuid[])
ORDER BY coalesce(e.transacao, '0'::xid8), e.sequence_number;

-- name: bus_cerca
-- What the readers' fence holds back now: committed events of one type from transactions
-- at or above the snapshot's xmin, which wait for an older transaction still running
-- somewhere in the cluster; and how long the oldest of them has waited since it was
-- inserted (0 when none waits).
SELECT count(*) AS retidos,
       coalesce(extract(epoch FROM clock_timestamp() - min(e.publicado_em)), 0)::float8
           AS atraso_s
FROM core.event_log e
WHERE e.tipo = %(tipo)s
  AND coalesce(e.transacao, '0'::xid8) >= pg_snapshot_xmin(pg_current_snapshot());

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

-- name: dlq_falhas_publicacao
-- A consumer's pending dead letters for publications that failed (spec 3.4/T9).
SELECT event_id
FROM core.dead_letter_queue
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND starts_with(erro, %(prefixo)s::text);

-- name: dlq_resolver
-- Mark a consumer's pending dead letters of these events resolved: their publication
-- went through.
UPDATE core.dead_letter_queue
SET status = 'reprocessado', reprocessado_em = clock_timestamp()
WHERE consumidor = %(consumidor)s AND status = 'pendente'
  AND event_id = ANY(%(event_ids)s::uuid[]);
