-- Evidence by use for each community UC (spec 8.5, "validação implícita por uso"): the
-- demands resolved to it, and the demands within ~500 m (0.0045°) of its border that
-- ended outside it: pending reviews (outside every polygon) and resolutions elsewhere. A
-- polygon drawn in the wrong place collects the second kind and little of the first.
-- suspeita = near and outside / (resolved to it + 1): the higher, the more the evidence
-- says the geometry needs a look. Cost: one pass over the stored points, each compared
-- with the bounding boxes of the community UCs (an analyst's query, not the worker's).
CREATE OR REPLACE VIEW d2.v_territorio_saude AS
WITH ucs AS (
    SELECT u.unidade_civica_id, u.nome, u.nivel, u.municipio_uc_id, u.geom,
           ST_Boundary(u.geom) AS borda, ST_Expand(u.geom, 0.0045::double precision) AS caixa
    FROM d2.territorio_ucs u
    WHERE u.ativa
),
pontos AS (
    SELECT 'revisao'::text AS origem,
           ST_SetSRID(ST_MakePoint(p.coordenadas_lng, p.coordenadas_lat), 4326) AS ponto
    FROM d2.revisoes_geo_pendentes p
    UNION ALL
    SELECT 'resolucao', ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326)
    FROM d2.resolucoes_geo r
),
perto AS (
    SELECT u.unidade_civica_id,
           count(*) FILTER (WHERE pt.origem = 'revisao') AS revisoes_perto,
           count(*) FILTER (WHERE pt.origem = 'resolucao') AS resolvidas_fora_perto
    FROM ucs u
    JOIN pontos pt
      ON u.caixa && pt.ponto
     AND ST_DWithin(u.borda, pt.ponto, 0.0045::double precision)
     AND NOT ST_Intersects(u.geom, pt.ponto)
    GROUP BY u.unidade_civica_id
),
versoes AS (
    SELECT s.alvo_uc_id,
           count(*) FILTER (WHERE s.decisao = 'confirmacao') AS confirmacoes,
           count(*) FILTER (WHERE s.decisao = 'alternativa') AS alternativas,
           count(*) FILTER (WHERE s.decisao = 'alternativa' AND s.moderacao = 'pendente')
               AS alternativas_pendentes
    FROM d2.territorio_submissoes s
    GROUP BY s.alvo_uc_id
)
SELECT u.unidade_civica_id, u.nome, u.nivel, u.municipio_uc_id,
       d.quantidade AS demandas_dentro,
       coalesce(p.revisoes_perto, 0) AS revisoes_perto,
       coalesce(p.resolvidas_fora_perto, 0) AS resolvidas_fora_perto,
       coalesce(v.confirmacoes, 0) AS confirmacoes,
       coalesce(v.alternativas, 0) AS alternativas,
       coalesce(v.alternativas_pendentes, 0) AS alternativas_pendentes,
       round((coalesce(p.revisoes_perto, 0) + coalesce(p.resolvidas_fora_perto, 0))::numeric
             / (d.quantidade + 1), 3) AS suspeita
FROM ucs u
CROSS JOIN LATERAL (
    SELECT count(*) AS quantidade FROM d2.resolucoes_geo r
    WHERE r.unidade_civica_id = u.unidade_civica_id
) d
LEFT JOIN perto p ON p.unidade_civica_id = u.unidade_civica_id
LEFT JOIN versoes v ON v.alvo_uc_id = u.unidade_civica_id;
