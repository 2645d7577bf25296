-- Set-based form of d2.resolver_territorio: many points in one statement, the same
-- answer per point (boundary-inclusive ST_Intersects, smallest nivel, tie broken by
-- unidade_civica_id, coordinates rounded to 5 decimals first). One row per point that
-- resolved, tagged with its 1-based position in the input arrays.
--   * The point is built once per input row.
--   * Three tiers, each probing its own partial GIST index: levels <= 3 (bairros), then
--     level 4 (municípios) only when no bairro contains the point, then levels >= 5
--     only when no município does. Every level of a tier sorts before every level of
--     the next, so "the first tier with an answer, its best" is exactly "the best over
--     all levels"; a point in a bairro never fetches nor tests the município, UF,
--     região and país pieces around it (1 candidate instead of 5).
--   * The chain comes from d2.mirror_cadeias (falling back to d2.cadeia_ucs, the source
--     of truth, for a UC not precomputed): one index probe instead of a recursive CTE.
--   * jit off: a big batch costs enough to trigger JIT compilation (50-100 ms) and
--     the query runs in a few ms.
CREATE OR REPLACE FUNCTION d2.resolver_territorios(lats double precision[], lngs double precision[])
RETURNS TABLE (
    ordem integer, unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[]
)
LANGUAGE sql STABLE PARALLEL SAFE
SET jit = off
AS $$
    SELECT pontos.ordem::integer, achado.unidade_civica_id, achado.nivel,
           coalesce(cad.cadeia_ucs, d2.cadeia_ucs(achado.unidade_civica_id))
    FROM unnest(lats, lngs) WITH ORDINALITY AS pontos (lat, lng, ordem)
    CROSS JOIN LATERAL (
        SELECT ST_SetSRID(
            ST_MakePoint(
                d2.arredondar_coordenada(pontos.lng), d2.arredondar_coordenada(pontos.lat)
            ),
            4326
        ) AS geom
        OFFSET 0
    ) ponto
    CROSS JOIN LATERAL (
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel <= 3 AND ST_Intersects(p.geom, ponto.geom)
            ORDER BY p.nivel, p.unidade_civica_id
            LIMIT 1
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel = 4 AND ST_Intersects(p.geom, ponto.geom)
            ORDER BY p.unidade_civica_id
            LIMIT 1
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel >= 5 AND ST_Intersects(p.geom, ponto.geom)
            ORDER BY p.nivel, p.unidade_civica_id
            LIMIT 1
        )
        LIMIT 1
    ) achado
    LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = achado.unidade_civica_id
$$;
