-- name: replica_source
-- Where the mirror reads its polygons now (d2.mirror_state.fonte).
SELECT d2.mirror_fonte() AS fonte;

-- name: replica_set_source
-- Switch the mirror's source (d2 mirror fonte, as the owner); the caller rebuilds.
UPDATE d2.mirror_state SET fonte = %(fonte)s;

-- name: replica_aplicar
-- One uc.poligono_* event into d2.replica_uc (sql/functions/replica_aplicar.sql).
SELECT d2.replica_aplicar(%(event_id)s, %(tipo)s::varchar, %(payload)s::jsonb) AS desfecho;

-- name: replica_publish_state
-- Publish what changed in core.uc_polygons since the last call, as uc.poligono_* events.
SELECT * FROM d2.poligonos_publicar_estado(%(origem)s::varchar);

-- name: replica_status
-- The replica at a glance (d2 status): rows, events applied, dead letters.
SELECT d2.mirror_fonte() AS fonte,
       (SELECT count(*) FROM d2.replica_uc) AS poligonos,
       (SELECT count(*) FROM d2.replica_eventos) AS eventos,
       (SELECT max(aplicado_em) FROM d2.replica_eventos) AS ultimo_evento_em;
