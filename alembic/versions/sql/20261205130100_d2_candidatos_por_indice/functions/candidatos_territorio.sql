-- The territorial inference's SQL half (issue 14): which bairros (nivel 2), municípios
-- (4) and UFs (5) a piece of address text names. The caller (d2/geocoder/inferencia.py)
-- splits each address into segments ("Rua X, 10", "Centro", "Vila Aurora - AU") and
-- decides from these candidates; no decision is taken here.
--
--   * Each segment is normalised exactly as core.uc_polygons.nome_busca is (lower case,
--     unaccent, apostrophes dropped, other punctuation a space), cut to its first 24
--     words, and every run of 1..6 consecutive words is compared with nome_busca
--     (equality, answered by the trigram GIN index uc_polygons_nome_busca_trgm_idx).
--   * A segment that is a single two-letter word may be a UF's sigla (metadados.sigla_uf).
--   * A segment of up to 6 words with no exact hit may still be a misspelt name: pg_trgm
--     similarity >= 0.6 over the whole segment (the index's % operator, then the
--     stricter threshold), flagged exato = false.
-- inicio/fim are the word span (1-based, inclusive) inside the segment, so the caller
-- can drop a name found inside a longer one ("boreal" inside "nova boreal").
-- The chains come from d2.mirror_cadeias (d2.cadeia_ucs for a UC not precomputed), and
-- the trigram similarity is computed only for segments with no exact hit (migration
-- 20261204140200: the same answers at about a third of the cost; the address ladder
-- calls it for every round of the geocoding stage). Migration 20261205130100: each run of
-- words is one probe of the btree index uc_polygons_nome_busca_idx (the planner, misled
-- by generate_series's estimate, hashed the whole table: ~13 ms a call against the
-- national territory), the trigram index asked at the threshold kept, and the body is
-- PL/pgSQL so its plan is kept for the session (planning it cost ~10 ms a call); the
-- same answers.
CREATE OR REPLACE FUNCTION d2.candidatos_territorio(
    ordens integer[], segmentos integer[], textos text[]
)
RETURNS TABLE (
    ordem integer, segmento integer, inicio integer, fim integer,
    unidade_civica_id uuid, nivel integer, nome varchar, cadeia_ucs uuid[], exato boolean
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, public
-- The index's % then keeps only what the 0.6 below keeps (the default 0.3 made it
-- recheck several times more rows): the same answers.
SET pg_trgm.similarity_threshold = 0.6
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
    sem_exato AS MATERIALIZED (
        SELECT seg.ordem, seg.segmento, seg.w, array_to_string(seg.w, ' ') AS termo
        FROM seg
        WHERE cardinality(seg.w) BETWEEN 1 AND 6
          AND length(array_to_string(seg.w, ' ')) >= 4
          AND NOT EXISTS (
              SELECT 1 FROM exatos e WHERE e.ordem = seg.ordem AND e.segmento = seg.segmento
          )
    ),
    aproximados AS (
        SELECT s.ordem, s.segmento, 1 AS inicio, cardinality(s.w) AS fim,
               u.unidade_civica_id, u.nivel, u.nome
        FROM sem_exato s
        JOIN core.uc_polygons u
          ON u.nome_busca % s.termo
         AND similarity(u.nome_busca, s.termo) >= 0.6
        WHERE u.nivel IN (2, 4, 5)
    ),
    todos AS (
        SELECT e.*, true AS exato FROM exatos e
        UNION ALL
        SELECT a.*, false FROM aproximados a
    ),
    unicos AS (
        SELECT DISTINCT ON (t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id)
               t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id, t.nivel, t.nome,
               t.exato
        FROM todos t
        ORDER BY t.ordem, t.segmento, t.inicio, t.fim, t.unidade_civica_id, t.exato DESC
    )
    SELECT q.ordem, q.segmento, q.inicio, q.fim, q.unidade_civica_id, q.nivel, q.nome,
           coalesce(cad.cadeia_ucs, d2.cadeia_ucs(q.unidade_civica_id)), q.exato
    FROM unicos q
    LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = q.unidade_civica_id
    ORDER BY q.ordem, q.segmento, q.inicio, q.fim, q.unidade_civica_id;
END;
$$;
