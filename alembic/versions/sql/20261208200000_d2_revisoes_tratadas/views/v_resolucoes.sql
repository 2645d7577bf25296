-- Resolutions for people: the UC's name and level, and its chain as names; for a point
-- no polygon held, how its review was closed (passo_revisao: proximidade, the near rule;
-- operador, an operator's choice) and how far the unit lies (distancia_m, metres), from
-- d2.revisoes_tratadas (migration 20261208200000: the two columns at the end).
CREATE OR REPLACE VIEW d2.v_resolucoes AS
SELECT r.demanda_id,
       r.unidade_civica_id,
       uc.nome AS uc_nome,
       r.nivel_minimo_resolvido AS nivel,
       (
           SELECT string_agg(coalesce(n.nome, c.uc::text), ' > ' ORDER BY c.pos)
           FROM unnest(r.cadeia_ucs) WITH ORDINALITY AS c (uc, pos)
           LEFT JOIN LATERAL (
               SELECT u.nome FROM core.uc_polygons u
               WHERE u.unidade_civica_id = c.uc ORDER BY u.id LIMIT 1
           ) n ON true
       ) AS cadeia_nomes,
       r.metodo_resolucao,
       r.confianca_geo,
       r.coordenadas_lat,
       r.coordenadas_lng,
       r.event_id,
       r.correlacao_id,
       r.criado_em,
       t.passo AS passo_revisao,
       t.distancia_m
FROM d2.resolucoes_geo r
LEFT JOIN LATERAL (
    SELECT u.nome FROM core.uc_polygons u
    WHERE u.unidade_civica_id = r.unidade_civica_id ORDER BY u.id LIMIT 1
) uc ON true
-- The step that answered this resolution's unit: a re-georeferencing that moved the
-- answer to a polygon leaves the record behind.
LEFT JOIN d2.revisoes_tratadas t
    ON t.event_id = r.event_id AND t.unidade_civica_id = r.unidade_civica_id;
