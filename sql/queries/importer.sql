-- name: importer_no_jit
-- For this transaction only. The mirror trigger runs once per written row, and the
-- planner's default row estimates for ST_Dump(ST_Subdivide(...)) make every call cost
-- enough to be JIT-compiled: ~100 ms of compilation per polygon, 30x the real work.
SET LOCAL jit = off;

-- name: importer_staging_create
-- The run's staging table: one row per UC read, dropped at the end of the transaction.
CREATE TEMP TABLE importer_staging (
    id          uuid PRIMARY KEY,
    nivel       integer NOT NULL,
    codigo      text NOT NULL,
    parent_id   uuid,
    nome        text NOT NULL,
    geometria   jsonb NOT NULL,
    fonte       text NOT NULL,
    metadados   jsonb NOT NULL,
    arquivo     text NOT NULL,
    orfao       boolean NOT NULL DEFAULT false,
    estado      text
) ON COMMIT DROP;

-- name: importer_staging_copy
-- Streams the prepared rows into the staging table.
COPY importer_staging (id, nivel, codigo, parent_id, nome, geometria, fonte, metadados, arquivo)
FROM STDIN;

-- name: importer_orphans
-- A parent that is neither in this run nor already in core.uc_polygons: the child keeps
-- parent_uc_id NULL (spec 8.5) and is reported as an orphan.
UPDATE importer_staging s
SET parent_id = NULL, orfao = true
WHERE s.parent_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM importer_staging p WHERE p.id = s.parent_id)
  AND NOT EXISTS (SELECT 1 FROM core.uc_polygons u WHERE u.unidade_civica_id = s.parent_id)
RETURNING s.nivel, s.codigo, s.arquivo;

-- name: importer_classify
-- novo / alterado / igual against what is stored; geometry compared as JSONB, which the
-- importer writes the same way every time (coordinates rounded to 7 decimals).
UPDATE importer_staging s
SET estado = coalesce(
    (
        SELECT CASE
            WHEN (u.unidade_civica_id, u.nivel, u.parent_uc_id, u.nome, u.geometria, u.fonte,
                  u.metadados)
                 IS NOT DISTINCT FROM
                 (s.id, s.nivel, s.parent_id, s.nome, s.geometria, s.fonte, s.metadados)
            THEN 'igual'
            ELSE 'alterado'
        END
        FROM core.uc_polygons u
        WHERE u.id = s.id
    ),
    'novo'
);

-- name: importer_counts
-- What the run found, per file and level.
SELECT arquivo, nivel, estado, count(*) AS quantidade
FROM importer_staging
GROUP BY arquivo, nivel, estado
ORDER BY arquivo, nivel, estado;

-- name: importer_upsert
-- Writes only what is new or changed; the WHERE keeps an unchanged row (and its
-- atualizado_em, and the mirror trigger) untouched even if it changed since classify.
INSERT INTO core.uc_polygons AS u
    (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte, metadados)
SELECT s.id, s.id, s.nivel, s.parent_id, s.nome, s.geometria, s.fonte, s.metadados
FROM importer_staging s
WHERE s.estado <> 'igual'
ORDER BY s.nivel DESC, s.id
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
