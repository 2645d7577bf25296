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
