-- name: demo_publish_upstream
-- The demo plays D-1b: a plain INSERT into the event log, as any upstream producer does.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, 'demanda.normalizada', %(versao)s, 'D-1b', NULL, %(payload)s::jsonb);

-- name: demo_resolved_by_level
-- Resolutions per level.
SELECT nivel_minimo_resolvido AS nivel, count(*) AS n
FROM d2.resolucoes_geo GROUP BY 1 ORDER BY 1;

-- name: demo_lag
-- The consumer's lag.
SELECT lag FROM d2.v_consumer_lag WHERE tipo_evento = 'demanda.normalizada';

-- name: demo_example_point
-- A point that resolved at the finest level, to try the resolver by hand.
SELECT round(coordenadas_lat::numeric, 5) AS lat, round(coordenadas_lng::numeric, 5) AS lng
FROM d2.resolucoes_geo ORDER BY nivel_minimo_resolvido, criado_em DESC LIMIT 1;

-- name: demo_resolved_by_method
-- Resolutions per method: gps, endereco (geocoded address), inferencia (a place named).
SELECT metodo_resolucao AS metodo, count(*) AS n
FROM d2.resolucoes_geo GROUP BY 1 ORDER BY 1;
