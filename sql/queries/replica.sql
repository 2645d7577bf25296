-- name: replica_source
-- Where the mirror reads its polygons now (d2.mirror_state.fonte).
SELECT d2.mirror_fonte() AS fonte;

-- name: replica_set_source
-- Switch the mirror's source (d2 mirror fonte, as the owner); the caller rebuilds.
UPDATE d2.mirror_state SET fonte = %(fonte)s;

-- name: replica_aplicar
-- One uc.poligono_* event into d2.replica_uc (sql/functions/replica_aplicar.sql): its
-- outcome, or 'recusado' / 'parado' with a one-line motivo. The limits are the owner's
-- (d2.replica_limites): the worker passes none.
SELECT a.desfecho, a.motivo
FROM d2.replica_aplicar(%(event_id)s::uuid) a;

-- name: replica_stop
-- The breaker stopped the replica before this event (sql/functions/replica_parar.sql,
-- which judges the event again and records the stop only when the breaker holds it).
SELECT d2.replica_parar(%(event_id)s::uuid) AS parou;

-- name: replica_stop_open
-- The breaker's stop in force, if any.
SELECT p.id, p.event_id, p.motivo, p.parada_em
FROM d2.replica_paradas p
WHERE p.retomada_em IS NULL;

-- name: replica_stop_read
-- While the breaker holds proposals, how far past the held event the importers' events
-- were looked at (d2.replica_aplicar records it).
SELECT p.vista_transacao::text::bigint AS transacao, p.vista_sequencia AS sequencia
FROM d2.replica_paradas p
WHERE p.retomada_em IS NULL AND p.vista_sequencia IS NOT NULL;

-- name: replica_stop_open_lock
-- The same, locked by `d2 mirror resume` (the owner) for its transaction.
SELECT p.id, p.event_id, p.motivo, p.parada_em
FROM d2.replica_paradas p
WHERE p.retomada_em IS NULL
FOR UPDATE;

-- name: replica_drop_held_removals
-- `d2 mirror resume --drop-removals`: every uc.poligono_removido after the replica's
-- cursor that D-2's importers did not publish ends as 'descartado'; the replica passes
-- over them (d2.replica_aplicar answers 'descartado').
WITH descartados AS (
    INSERT INTO d2.replica_eventos (event_id, tipo, uc_polygon_id, desfecho)
    SELECT e.event_id, e.tipo, (e.payload ->> 'uc_polygon_id')::uuid, 'descartado'
    FROM core.event_log e
    WHERE e.tipo = 'uc.poligono_removido'
      AND (coalesce(e.transacao, '0'::xid8), e.sequence_number)
          > (%(transacao)s::text::xid8, %(seq)s::bigint)
      AND NOT EXISTS (
          SELECT 1 FROM d2.poligonos_eventos l
          WHERE l.event_id = e.event_id AND l.hash = md5(e.payload::text)
      )
    ON CONFLICT (event_id) DO NOTHING
    RETURNING 1
)
SELECT count(*) AS n FROM descartados;

-- name: replica_resume
-- `d2 mirror resume`: the stop ends; the breaker counts again from now.
UPDATE d2.replica_paradas
SET retomada_em = clock_timestamp(), retomada_por = %(por)s, descartados = %(descartados)s
WHERE id = %(id)s;

-- name: replica_publish_state
-- Publish what changed in core.uc_polygons since the last call, as uc.poligono_* events.
SELECT * FROM d2.poligonos_publicar_estado(%(origem)s::varchar);

-- name: replica_status
-- The replica at a glance (d2 status): rows, events applied, the breaker's stop.
SELECT d2.mirror_fonte() AS fonte,
       (SELECT count(*) FROM d2.replica_uc) AS poligonos,
       (SELECT count(*) FROM d2.replica_eventos) AS eventos,
       (SELECT max(aplicado_em) FROM d2.replica_eventos) AS ultimo_evento_em;
