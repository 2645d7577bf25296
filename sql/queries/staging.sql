-- The last two steps of an import, shared by the IBGE and the OSM importers: {staging} is
-- the run's staging table (importer_staging or osm_staging), composed in as an identifier.
-- Both have alvo, uc_id, nivel, parent_id, nome, geometria, fonte, metadados and estado.

-- name: staging_classify
-- novo / alterado / igual against what is stored; geometry compared as JSONB, which the
-- importers write the same way every time (coordinates rounded to 7 decimals). Rows an
-- importer set aside already (estado not null: OSM's 'ignorado') keep their estado.
UPDATE {staging} s
SET estado = coalesce(
    (
        SELECT CASE
            WHEN (u.unidade_civica_id, u.nivel, u.parent_uc_id, u.nome, u.geometria, u.fonte,
                  u.metadados)
                 IS NOT DISTINCT FROM
                 (s.uc_id, s.nivel, s.parent_id, s.nome, s.geometria, s.fonte, s.metadados)
            THEN 'igual'
            ELSE 'alterado'
        END
        FROM core.uc_polygons u
        WHERE u.id = s.alvo
    ),
    'novo'
)
WHERE s.estado IS NULL;

-- name: staging_upsert
-- Writes only what is new or changed, under the ids it continues, parents first; the
-- WHERE keeps an unchanged row (and its atualizado_em) untouched even if it changed since
-- classify.
INSERT INTO core.uc_polygons AS u
    (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte, metadados)
SELECT s.alvo, s.uc_id, s.nivel, s.parent_id, s.nome, s.geometria, s.fonte, s.metadados
FROM {staging} s
WHERE s.estado IN ('novo', 'alterado')
ORDER BY s.nivel DESC, s.alvo
ON CONFLICT (id) DO UPDATE
SET unidade_civica_id = EXCLUDED.unidade_civica_id,
    nivel = EXCLUDED.nivel,
    parent_uc_id = EXCLUDED.parent_uc_id,
    nome = EXCLUDED.nome,
    geometria = EXCLUDED.geometria,
    fonte = EXCLUDED.fonte,
    metadados = EXCLUDED.metadados,
    atualizado_em = CURRENT_TIMESTAMP
WHERE (u.unidade_civica_id, u.nivel, u.parent_uc_id, u.nome, u.geometria, u.fonte, u.metadados)
      IS DISTINCT FROM
      (EXCLUDED.unidade_civica_id, EXCLUDED.nivel, EXCLUDED.parent_uc_id, EXCLUDED.nome,
       EXCLUDED.geometria, EXCLUDED.fonte, EXCLUDED.metadados);
