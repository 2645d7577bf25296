-- Re-georeferencing history for people: each change with the old and new UC names.
CREATE OR REPLACE VIEW d2.v_resolucoes_historico AS
SELECT h.demanda_id,
       h.alterado_em,
       h.motivo,
       h.nivel_anterior,
       h.unidade_civica_id_anterior,
       anterior.nome AS uc_anterior_nome,
       h.nivel_novo,
       h.unidade_civica_id_nova,
       nova.nome AS uc_nova_nome,
       h.mirror_versao,
       h.evento_publicado_id
FROM d2.resolucoes_geo_historico h
LEFT JOIN LATERAL (
    SELECT u.nome FROM core.uc_polygons u
    WHERE u.unidade_civica_id = h.unidade_civica_id_anterior ORDER BY u.id LIMIT 1
) anterior ON true
LEFT JOIN LATERAL (
    SELECT u.nome FROM core.uc_polygons u
    WHERE u.unidade_civica_id = h.unidade_civica_id_nova ORDER BY u.id LIMIT 1
) nova ON true;
