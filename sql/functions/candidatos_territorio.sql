-- The territorial inference's SQL half: which bairros (nivel 2), municípios
-- (4) and UFs (5) a piece of address text names. The caller (d2/geocoder/places/lookup.py)
-- splits each address into segments ("Rua X, 10", "Centro", "Vila Aurora - AU") and
-- decides from these candidates; no decision is taken here.
--
--   * Each segment is normalised exactly as core.uc_polygons.nome_busca is (lower case,
--     unaccent, apostrophes dropped, other punctuation a space), cut to its first 24
--     words, and every run of 1..6 consecutive words is compared with nome_busca
--     (equality: one probe of the btree index uc_polygons_nome_busca_idx each).
--   * A segment that is a single two-letter word may be a UF's sigla (metadados.sigla_uf).
--   * Names only as written: a misspelt name is proposed in the process
--     (d2/geocoder/places/names.py: rapidfuzz over the names it holds); exato is always true.
-- inicio/fim are the word span (1-based, inclusive) inside the segment, so the caller
-- can drop a name found inside a longer one ("boreal" inside "nova boreal").
-- The chains come from d2.mirror_cadeias (d2.cadeia_ucs for a UC not precomputed).
-- Migration 20261205130100: each run of words is one probe of the btree index
-- uc_polygons_nome_busca_idx (the planner, misled by generate_series's estimate, hashed
-- the whole table: ~13 ms a call against the national territory), and the body is
-- PL/pgSQL so its plan is kept for the session (planning it cost ~10 ms a call).
-- Migration 20261206110000: the trigram search for a segment with no exact name left
-- for the process (it missed short misspellings under its 0.6 similarity, "duorados"
-- for "dourados"), and one generic plan kept (a custom plan per call cost ~0.5 ms).
CREATE OR REPLACE FUNCTION d2.candidatos_territorio(
    ordens integer[], segmentos integer[], textos text[]
)
RETURNS TABLE (
    ordem integer, segmento integer, inicio integer, fim integer,
    unidade_civica_id uuid, nivel integer, nome varchar, cadeia_ucs uuid[], exato boolean
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, public
-- One generic plan for the session: its custom plans (the arrays' sizes known) cost as
-- much to make as the probes cost to run.
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH seg AS (
        SELECT s.ordem, s.segmento,
               (string_to_array(btrim(regexp_replace(
                    regexp_replace(
                        regexp_replace(lower(unaccent(left(s.texto, 300))), '[''`´’]', '', 'g'),
                        '[^a-z0-9]+', ' ', 'g'),
                    '\s+', ' ', 'g')), ' '))[1:24] AS w
        FROM unnest(candidatos_territorio.ordens, candidatos_territorio.segmentos,
                    candidatos_territorio.textos) AS s (ordem, segmento, texto)
    ),
    termos AS (
        SELECT seg.ordem, seg.segmento, i AS inicio, f AS fim,
               array_to_string(seg.w[i:f], ' ') AS termo
        FROM seg
        CROSS JOIN generate_series(1, coalesce(cardinality(seg.w), 0)) AS i
        CROSS JOIN generate_series(i, least(cardinality(seg.w), i + 5)) AS f
        WHERE seg.w <> '{}' AND seg.w <> '{""}'
    ),
    exatos AS MATERIALIZED (
        SELECT t.ordem, t.segmento, t.inicio, t.fim, u.unidade_civica_id, u.nivel, u.nome
        FROM termos t
        CROSS JOIN LATERAL (
            -- OFFSET 0: one probe per run of words, never a hash of the whole table.
            SELECT x.unidade_civica_id, x.nivel, x.nome FROM core.uc_polygons x
            WHERE x.nome_busca = t.termo AND x.nivel IN (2, 4, 5)
            OFFSET 0
        ) AS u
        UNION
        SELECT seg.ordem, seg.segmento, 1, 1, u.unidade_civica_id, u.nivel, u.nome
        FROM seg
        JOIN core.uc_polygons u
          ON u.nivel = 5 AND lower(u.metadados ->> 'sigla_uf') = seg.w[1]
        WHERE cardinality(seg.w) = 1 AND length(seg.w[1]) = 2
    ),
    unicos AS (
        SELECT DISTINCT ON (t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id)
               t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id, t.nivel, t.nome,
               t.exato
        FROM (SELECT e.*, true AS exato FROM exatos e) AS t
        ORDER BY t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id
    )
    SELECT q.ordem, q.segmento, q.inicio, q.fim, q.unidade_civica_id, q.nivel, q.nome,
           coalesce(cad.cadeia_ucs, d2.cadeia_ucs(q.unidade_civica_id)), q.exato
    FROM unicos q
    LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = q.unidade_civica_id
    ORDER BY q.ordem, q.segmento, q.inicio, q.fim, q.unidade_civica_id;
END;
$$;
