-- name: importer_staging_create
-- The run's staging table: one row per UC read, dropped at the end of the transaction.
-- id is the deterministic uuid5; alvo and uc_id are the row id and UC id it is written
-- under: those of the stored row it continues (found by id, else by fonte and official
-- code in metadados, as the old seed wrote them, spec 8.5), or id itself when new.
CREATE TEMP TABLE importer_staging (
    id          uuid PRIMARY KEY,
    nivel       integer NOT NULL,
    codigo      text NOT NULL,
    chave       text NOT NULL,
    parent_id   uuid,
    nivel_pai   integer,
    codigo_pai  text,
    chave_pai   text,
    nome        text NOT NULL,
    geometria   jsonb NOT NULL,
    fonte       text NOT NULL,
    metadados   jsonb NOT NULL,
    arquivo     text NOT NULL,
    alvo        uuid,
    uc_id       uuid,
    orfao       boolean NOT NULL DEFAULT false,
    estado      text
) ON COMMIT DROP;

-- name: importer_staging_copy
-- Streams the prepared rows into the staging table.
COPY importer_staging (id, nivel, codigo, chave, parent_id, nivel_pai, codigo_pai, chave_pai,
                       nome, geometria, fonte, metadados, arquivo)
FROM STDIN;

-- name: importer_match_id
-- A stored row with the deterministic id: this UC, written by this importer before.
UPDATE importer_staging s
SET alvo = u.id, uc_id = u.unidade_civica_id
FROM core.uc_polygons u
WHERE u.id = s.id;

-- name: importer_match_codigo
-- Otherwise a stored row of the same fonte and level whose metadados hold the same
-- official code under the layer's key (the old seed's random ids): continued in place,
-- never duplicated. Several such rows: the smallest id, and only one staging row each.
UPDATE importer_staging s
SET alvo = e.id, uc_id = e.unidade_civica_id
FROM (
    SELECT DISTINCT ON (x.fonte, x.nivel, x.codigo) x.id, x.unidade_civica_id, x.fonte,
           x.nivel, x.codigo
    FROM (
        SELECT u.id, u.unidade_civica_id, u.fonte, u.nivel, u.metadados ->> k.chave AS codigo
        FROM core.uc_polygons u
        JOIN (SELECT DISTINCT t.fonte, t.nivel, t.chave FROM importer_staging t) k
          ON k.fonte = u.fonte AND k.nivel = u.nivel
    ) x
    WHERE x.codigo IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM importer_staging t WHERE t.alvo = x.id)
    ORDER BY x.fonte, x.nivel, x.codigo, x.id
) e
WHERE s.alvo IS NULL
  AND e.fonte = s.fonte AND e.nivel = s.nivel AND e.codigo = s.codigo;

-- name: importer_match_pais
-- The old seed's país had no code among its keys (spec 8.5 names only município, UF,
-- região and bairro): the one stored país of the same fonte without a code is this one.
UPDATE importer_staging s
SET alvo = u.id, uc_id = u.unidade_civica_id
FROM core.uc_polygons u
WHERE s.alvo IS NULL AND s.nivel = 7
  AND u.nivel = 7 AND u.fonte = s.fonte AND NOT u.metadados ? s.chave
  AND (SELECT count(*) FROM core.uc_polygons p WHERE p.nivel = 7 AND p.fonte = s.fonte) = 1
  AND NOT EXISTS (SELECT 1 FROM importer_staging t WHERE t.alvo = u.id);

-- name: importer_match_new
-- What matched nothing is new, under its deterministic id.
UPDATE importer_staging SET alvo = id, uc_id = id WHERE alvo IS NULL;

-- name: importer_parents
-- The parent's UC id: the parent's in this run, else a stored UC with the deterministic
-- id, else a stored row of the parent's level with the parent's code (the old seed's).
-- None of them: the child keeps parent_uc_id NULL (spec 8.5) and is reported.
UPDATE importer_staging s
SET parent_id = coalesce(
        (SELECT p.uc_id FROM importer_staging p WHERE p.id = s.parent_id),
        (SELECT u.unidade_civica_id FROM core.uc_polygons u
         WHERE u.unidade_civica_id = s.parent_id LIMIT 1),
        (SELECT u.unidade_civica_id FROM core.uc_polygons u
         WHERE u.fonte = s.fonte AND u.nivel = s.nivel_pai
           AND u.metadados ->> s.chave_pai = s.codigo_pai
         ORDER BY u.id LIMIT 1)
    )
WHERE s.parent_id IS NOT NULL;

-- name: importer_orphans
-- The children left without a parent, for the report.
UPDATE importer_staging s
SET orfao = true
WHERE s.codigo_pai IS NOT NULL AND s.parent_id IS NULL
RETURNING s.nivel, s.codigo, s.arquivo;

-- name: importer_counts
-- What the run found, per file and level.
SELECT arquivo, nivel, estado, count(*) AS quantidade
FROM importer_staging
GROUP BY arquivo, nivel, estado
ORDER BY arquivo, nivel, estado;
