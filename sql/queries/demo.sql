-- name: demo_publish_upstream
-- The demo plays the upstream colonies (D-1b's demands, L-1's drawings): a plain INSERT
-- into the event log, as any producer does (D-2's own publisher takes only its outputs).
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, %(tipo)s, %(versao)s, %(origem)s, NULL, %(payload)s::jsonb);

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

-- name: demo_centro_to_bairro
-- Where the demo's citizens draw a bairro: the stored município-level demand whose
-- square of 2 × %(meio)s degrees around it lies inside its município and holds the most
-- other município-level demands.
SELECT r.coordenadas_lat AS lat, r.coordenadas_lng AS lng
FROM d2.resolucoes_geo r
JOIN d2.mirror_uc m ON m.unidade_civica_id = r.unidade_civica_id
CROSS JOIN LATERAL (
    SELECT ST_Expand(ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326),
                     %(meio)s::double precision) AS quadrado
) q
WHERE r.nivel_minimo_resolvido = 4 AND ST_CoveredBy(q.quadrado, m.geom)
ORDER BY (
    SELECT count(*) FROM d2.resolucoes_geo o
    WHERE o.nivel_minimo_resolvido = 4
      AND ST_Intersects(q.quadrado, ST_SetSRID(ST_MakePoint(o.coordenadas_lng, o.coordenadas_lat), 4326))
) DESC, r.id
LIMIT 1;

-- name: demo_drawings
-- What became of the demo's drawings, and how many demands each UC now holds.
SELECT s.nome, s.decisao, round(s.sobreposicao::numeric, 2) AS sobreposicao, s.moderacao,
       s.alvo_uc_id,
       (SELECT count(*) FROM d2.resolucoes_geo r WHERE r.unidade_civica_id = s.alvo_uc_id)
           AS demandas
FROM d2.territorio_submissoes s
WHERE s.event_id = ANY(%(eventos)s::uuid[])
ORDER BY s.criado_em;

-- name: demo_regeo_history
-- Resolutions the follow-up rewrote because the demo's drawing created a bairro.
SELECT count(*) AS n FROM d2.resolucoes_geo_historico WHERE unidade_civica_id_nova = %(uc)s;
-- name: demo_resolved_by_method
-- Resolutions per method: gps, endereco (geocoded address), inferencia (a place named).
SELECT metodo_resolucao AS metodo, count(*) AS n
FROM d2.resolucoes_geo GROUP BY 1 ORDER BY 1;
