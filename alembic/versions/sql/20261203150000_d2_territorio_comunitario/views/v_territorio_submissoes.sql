-- The moderators' list: every citizen-drawn submission with its decision, the UC it
-- created or counts against, and the moderation state of alternatives.
CREATE OR REPLACE VIEW d2.v_territorio_submissoes AS
SELECT s.id AS submissao_id, s.event_id, s.lugar_id, s.nome, s.nivel, s.decisao, s.motivo,
       s.alvo_uc_id AS unidade_civica_id, uc.nome AS uc_nome, uc.fonte AS uc_fonte,
       s.municipio_uc_id, mun.nome AS municipio_nome,
       round(s.sobreposicao::numeric, 3) AS sobreposicao,
       round(s.area_m2::numeric) AS area_m2, s.reparada, s.moderacao,
       (t.submissao_canonica = s.id) AS canonica,
       s.criado_em, s.moderado_em, s.moderado_por
FROM d2.territorio_submissoes s
LEFT JOIN d2.territorio_ucs t ON t.unidade_civica_id = s.alvo_uc_id
LEFT JOIN LATERAL (
    SELECT p.nome, p.fonte FROM core.uc_polygons p
    WHERE p.unidade_civica_id = s.alvo_uc_id ORDER BY p.id LIMIT 1
) uc ON true
LEFT JOIN LATERAL (
    SELECT p.nome FROM core.uc_polygons p
    WHERE p.unidade_civica_id = s.municipio_uc_id ORDER BY p.id LIMIT 1
) mun ON true;
