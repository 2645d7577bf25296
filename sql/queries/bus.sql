-- name: bus_publish
-- Events in one statement, inside the caller's transaction, from a JSON array of
-- {event_id, tipo, versao_schema, correlacao_id, payload}: a plain INSERT, as any producer
-- writes it, through the view that admits only D-2's types (d2.eventos_publicar). Their
-- sequence numbers follow the order of the array: the column's default is evaluated row
-- by row, after the ORDER BY.
INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT (item.valor ->> 'event_id')::uuid, item.valor ->> 'tipo',
       item.valor ->> 'versao_schema', %(origem)s, (item.valor ->> 'correlacao_id')::uuid,
       item.valor -> 'payload'
FROM jsonb_array_elements(%(itens)s::jsonb) WITH ORDINALITY AS item (valor, posicao)
ORDER BY item.posicao;

-- name: bus_read_since
-- Events of some types after a position (transacao, sequence_number), in that order, gap
-- safe, with payloads over max_payload left out and the batch bounded by max_lote bytes:
-- see sql/functions/eventos_ler.sql.
SELECT sequence_number, event_id, tipo, versao_schema, origem, correlacao_id, payload,
       publicado_em, transacao, tamanho
FROM d2.eventos_ler(%(tipos)s::varchar[], %(transacao)s::text::xid8, %(apos)s::bigint,
                    %(limite)s::integer, %(max_payload)s::bigint, %(max_lote)s::bigint);

-- name: bus_read_events
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

-- name: bus_fence
-- What the readers' fence holds back now for one type, and for how long: see
-- sql/functions/eventos_cerca.sql.
SELECT retidos, atraso_s FROM d2.eventos_cerca(%(tipo)s::varchar);

-- name: bus_fence_holder
-- Who holds the readers' fence: the oldest transaction with an id still running anywhere
-- in the cluster (every database: transaction ids are the cluster's), a session or a
-- prepared transaction (no pid; its gid as the application). Every role sees the pid,
-- role, database and application of every session; how long its transaction has run
-- only where it may see more (its own role, pg_read_all_stats), else NULL.
SELECT t.pid, t.usuario, t.banco, t.aplicacao, t.transacao_s, t.xid::text AS xid
FROM (
    SELECT a.pid, a.usename::text AS usuario, a.datname::text AS banco,
           a.application_name AS aplicacao,
           extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS transacao_s,
           a.backend_xid AS xid
    FROM pg_stat_activity a
    WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
    UNION ALL
    SELECT NULL::integer, p.owner::text, p.database::text, 'prepared transaction ' || p.gid,
           extract(epoch FROM clock_timestamp() - p.prepared)::float8, p.transaction
    FROM pg_prepared_xacts p
) t
ORDER BY age(t.xid) DESC
LIMIT 1;

-- name: bus_max_sequence_of_type
-- The highest sequence number of one type (0 when there is none).
SELECT coalesce(max(sequence_number), 0) AS maior
FROM d2.eventos
WHERE tipo = %(tipo)s;

-- name: bus_max_sequence
-- The highest sequence number of the events D-2 reads (0 when there is none).
SELECT coalesce(max(sequence_number), 0) AS maior FROM d2.eventos;
