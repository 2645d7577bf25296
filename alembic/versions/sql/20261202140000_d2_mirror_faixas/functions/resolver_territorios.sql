-- Version 3 of d2.resolver_territorios (migration 20261202140000): the batch resolver
-- the worker calls. Same answer per point as d2.resolver_territorio (boundary-inclusive,
-- smallest nivel, tie broken by unidade_civica_id, coordinates rounded to 5 decimals
-- first); one row per point that resolved, tagged with its 1-based position.
--
--   * First, the point's band in d2.mirror_faixas: one B-tree probe finds the clean
--     interval left of the point; if the point is strictly inside it, that interval's
--     answer is the answer (no geometry is touched). 97% of random points in Brazil,
--     on the shared data.
--   * Otherwise the three GIST tiers of version 2: levels <= 3, then 4, then >= 5, each
--     probing its own partial index, the first tier with an answer wins (every level of
--     a tier sorts before every level of the next). ST_Covers, not ST_Intersects: for a
--     point they are the same predicate (the closed polygon holds it), and PostGIS
--     tests it about twice as fast.
--   * The chain from d2.mirror_cadeias (d2.cadeia_ucs, the source of truth, for a UC
--     not precomputed).
--   * PL/pgSQL, not SQL: a SQL function with a SET clause cannot be inlined and is
--     planned again at every call (~20 ms for this query: 40 µs per point of a batch of
--     500); PL/pgSQL keeps the plan for the session.
CREATE OR REPLACE FUNCTION d2.resolver_territorios(lats double precision[], lngs double precision[])
RETURNS TABLE (
    ordem integer, unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[]
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET jit = off
AS $$
BEGIN
    RETURN QUERY
    SELECT pontos.ordem::integer, achado.unidade_civica_id, achado.nivel,
           coalesce(cad.cadeia_ucs, d2.cadeia_ucs(achado.unidade_civica_id))
    FROM unnest(lats, lngs) WITH ORDINALITY AS pontos (lat, lng, ordem)
    CROSS JOIN LATERAL (
        SELECT d2.arredondar_coordenada(pontos.lng) AS x,
               d2.arredondar_coordenada(pontos.lat) AS y
        OFFSET 0
    ) r
    CROSS JOIN LATERAL (
        (
            SELECT f.unidade_civica_id, f.nivel
            FROM (
                SELECT f.unidade_civica_id, f.nivel, f.x_fim
                FROM d2.mirror_faixas f
                WHERE f.faixa = floor(r.y * d2.faixas_por_grau())::integer
                  AND f.x_inicio < r.x
                ORDER BY f.x_inicio DESC
                LIMIT 1
            ) f
            WHERE r.x < f.x_fim
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel <= 3 AND ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(r.x, r.y), 4326))
            ORDER BY p.nivel, p.unidade_civica_id
            LIMIT 1
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel = 4 AND ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(r.x, r.y), 4326))
            ORDER BY p.unidade_civica_id
            LIMIT 1
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel >= 5 AND ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(r.x, r.y), 4326))
            ORDER BY p.nivel, p.unidade_civica_id
            LIMIT 1
        )
        LIMIT 1
    ) achado
    LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = achado.unidade_civica_id;
END
$$;
