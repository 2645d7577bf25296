-- Reviews closed without a polygon holding their point (d2.revisoes_tratadas), latest
-- first, with the unit's name: the near rule's answers, the operators' choices and
-- discards, who closed them, when and why (migration 20261208200000).
CREATE OR REPLACE VIEW d2.v_revisoes_tratadas AS
SELECT t.demanda_id,
       t.event_id,
       t.passo,
       t.unidade_civica_id,
       uc.nome AS uc_nome,
       t.distancia_m,
       t.limite_m,
       t.coordenadas_lat,
       t.coordenadas_lng,
       t.tratado_por,
       t.usuario_banco,
       t.motivo,
       t.revisao_desde,
       t.tratado_em
FROM d2.revisoes_tratadas t
LEFT JOIN LATERAL (
    SELECT u.nome FROM core.uc_polygons u
    WHERE u.unidade_civica_id = t.unidade_civica_id ORDER BY u.id LIMIT 1
) uc ON true
ORDER BY t.tratado_em DESC, t.event_id;
