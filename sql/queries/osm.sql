-- name: osm_staging_create
-- The OSM run's staging table: one row per bairro read, dropped at the end.
CREATE TEMP TABLE osm_staging (
    id          uuid PRIMARY KEY,
    osm_id      text NOT NULL,
    nome        text NOT NULL,
    geometria   jsonb NOT NULL,
    metadados   jsonb NOT NULL,
    parent_id   uuid,
    nivel       integer NOT NULL DEFAULT 2,  -- bairros; for staging_classify/_upsert
    fonte       text NOT NULL DEFAULT 'osm',
    alvo        uuid,
    uc_id       uuid,
    estado      text,
    motivo      text
) ON COMMIT DROP;

-- name: osm_staging_copy
-- Streams the prepared bairros into the staging table.
COPY osm_staging (id, osm_id, nome, geometria, metadados) FROM STDIN;

-- name: osm_parent
-- The parent: the level-4 polygon of the mirror that covers a point inside the bairro
-- (smallest unidade_civica_id when two do, so reruns agree).
UPDATE osm_staging s
SET parent_id = (
    SELECT m.unidade_civica_id
    FROM d2.mirror_uc m
    WHERE m.nivel = 4
      AND ST_Covers(
          m.geom, ST_PointOnSurface(ST_SetSRID(ST_GeomFromGeoJSON(s.geometria::text), 4326))
      )
    ORDER BY m.unidade_civica_id
    LIMIT 1
);

-- name: osm_skip
-- OSM bairros are the fallback layer (spec 8.5, layer 3): none outside a known
-- município, none where the município has IBGE bairros.
UPDATE osm_staging s
SET estado = 'ignorado',
    motivo = CASE
        WHEN s.parent_id IS NULL THEN 'inside no município (level 4) of the database'
        ELSE 'município has IBGE bairros'
    END
WHERE s.parent_id IS NULL
   OR EXISTS (
       SELECT 1 FROM core.uc_polygons u
       WHERE u.nivel = 2 AND u.fonte = 'ibge' AND u.parent_uc_id = s.parent_id
   );

-- name: osm_match
-- The stored row each bairro continues: the one with its deterministic id, else an OSM
-- level-2 row whose metadados hold the same OSM id (an older importer's random ids; the
-- smallest id when several), else none (new, under the deterministic id).
UPDATE osm_staging s
SET alvo = coalesce(
        (SELECT u.id FROM core.uc_polygons u WHERE u.id = s.id),
        (SELECT u.id FROM core.uc_polygons u
         WHERE u.fonte = 'osm' AND u.nivel = 2 AND u.metadados ->> 'osm_id' = s.osm_id
           AND NOT EXISTS (SELECT 1 FROM osm_staging t WHERE t.id = u.id)
         ORDER BY u.id LIMIT 1),
        s.id
    );

-- name: osm_match_uc
-- ... and the UC id it keeps.
UPDATE osm_staging s
SET uc_id = coalesce((SELECT u.unidade_civica_id FROM core.uc_polygons u WHERE u.id = s.alvo), s.id);

-- name: osm_counts
-- What the run found, by outcome and reason.
SELECT estado, coalesce(motivo, '') AS motivo, count(*) AS quantidade
FROM osm_staging
GROUP BY estado, motivo
ORDER BY estado, motivo;

-- name: osm_ignored
-- Some of the skipped bairros, for people to check.
SELECT osm_id, nome, motivo FROM osm_staging
WHERE estado = 'ignorado'
ORDER BY motivo, nome, osm_id
LIMIT %(limite)s;
