-- name: territorio_submitted
-- Whether a drawing was submitted already (by another consumer): nothing to evaluate.
SELECT 1 AS sim FROM d2.territorio_submissoes WHERE event_id = %(event_id)s;

-- name: territorio_tentar
-- One more attempt at evaluating a drawing, committed before the evaluation begins.
SELECT d2.territorio_tentar(%(event_id)s) AS tentativas;

-- name: territorio_avaliar
-- A drawing's evaluation: every geometry step, before any transaction id is taken.
SELECT decisao, motivo FROM d2.territorio_avaliar(%(event_id)s);

-- name: territorio_submeter
-- The drawing's submission, acting on its evaluation (sql/functions/territorio_submeter.sql).
SELECT * FROM d2.territorio_submeter(%(event_id)s, %(alerta_a_cada)s);

-- name: territorio_uc_for_event
-- A community UC as its uc.poligono_* events carry it: canonical geometry as GeoJSON.
SELECT u.unidade_civica_id, u.uc_polygon_id, u.nivel, u.nome, s.parent_uc_id,
       ST_AsGeoJSON(u.geom, 7)::jsonb AS geometria, u.submissao_canonica AS submissao_id,
       s.lugar_id
FROM d2.territorio_ucs u
JOIN d2.territorio_submissoes s ON s.id = u.submissao_canonica
WHERE u.unidade_civica_id = %(uc)s;

-- name: territorio_uc_removed
SELECT uc_polygon_id, nivel FROM d2.territorio_ucs WHERE unidade_civica_id = %(uc)s;

-- name: territorio_pending_of_uc
-- Versions of one UC still waiting for a moderator.
SELECT count(*) AS pendentes
FROM d2.territorio_submissoes
WHERE alvo_uc_id = %(uc)s AND moderacao = 'pendente';

-- name: territorio_list
-- Submissions newest first; with pendentes, only those awaiting a moderator
-- (alternatives, and held new drawings).
SELECT submissao_id, nome, nivel, decisao, motivo, unidade_civica_id, uc_nome, uc_fonte,
       municipio_nome, sobreposicao, area_m2, moderacao, canonica, criado_em
FROM d2.v_territorio_submissoes
WHERE NOT %(pendentes)s OR moderacao = 'pendente'
ORDER BY criado_em DESC, submissao_id
LIMIT %(limite)s;

-- name: territorio_show
SELECT v.*, ST_AsGeoJSON(s.geom, 7)::jsonb AS geometria
FROM d2.v_territorio_submissoes v
JOIN d2.territorio_submissoes s ON s.id = v.submissao_id
WHERE v.submissao_id = %(id)s;

-- name: territorio_versions
-- Every drawing counted for one UC, with its overlap and whether it is the canonical one.
SELECT submissao_id, decisao, sobreposicao, moderacao, canonica, criado_em
FROM d2.v_territorio_submissoes
WHERE unidade_civica_id = %(uc)s AND decisao <> 'rejeitada'
ORDER BY criado_em, submissao_id;

-- name: territorio_moderar
SELECT * FROM d2.territorio_moderar(%(id)s, %(acao)s, %(por)s);

-- name: territorio_health
SELECT * FROM d2.v_territorio_saude
ORDER BY suspeita DESC, demandas_dentro, unidade_civica_id
LIMIT %(limite)s;
