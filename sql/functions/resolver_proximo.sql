-- The near rule (docs/design.md, decision 12): the answer for a point that
-- d2.resolver_territorio leaves in no polygon (a beach, a river bank, a border drawn
-- coarser than the street) when exactly one município lies within limite_m metres of it
-- and no other within limite_m + margem_m; zero rows otherwise (none near, or two: a bay,
-- a river between them, a border). Where exactly one bairro lies within limite_m and no
-- other within limite_m + margem_m, and it lies in that município (its chain holds it),
-- the bairro is the answer; else the município. distancia_m is the answered unit's
-- distance from the point, in metres.
--   * Meant for the points d2.resolver_territorio does not answer (its callers ask it
--     only for those): it does not test containment itself, and a point inside a
--     município near another one gets no answer here.
--   * A pure function of the coordinates rounded to 5 decimals, like the resolver
--     (docs/design.md, decision 2), and of the two distances: the worker caches its
--     answer under the same key, its distances fixed for its life.
--   * Bounded work per point: limite_m and margem_m are each taken in [0, 1000] (0
--     metres: the rule is off); the candidates are the level 2 and 4 pieces of
--     d2.mirror_pieces whose box meets the point's box widened by their sum (GIST, the
--     resolver's own partial index), at most 1000 of them: past that the place is too
--     crowded to decide by distance and the point stays in review.
--   * Distances in metres (d2.distancia_m: the edges straight in degrees, as the resolver
--     tests containment, scaled on the ellipsoid at the point), never in degrees: a
--     degree of longitude is 17 % shorter at Porto Alegre than at Belém.
-- A plain SQL function with no SET clause, inlined where it is called;
-- d2.resolver_proximos runs it for many points.
CREATE OR REPLACE FUNCTION d2.resolver_proximo(
    lat double precision,
    lng double precision,
    limite_m double precision DEFAULT 100,
    margem_m double precision DEFAULT 500
)
RETURNS TABLE (
    unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[],
    distancia_m double precision
)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH ponto AS MATERIALIZED (
        SELECT p.geom, ST_X(p.geom) AS x, ST_Y(p.geom) AS y, lim.d, lim.d + lim.m AS alcance,
               ST_Expand(
                   p.geom,
                   (lim.d + lim.m) / (110000 * cos(radians(least(abs(ST_Y(p.geom)) + 0.1, 89)))),
                   (lim.d + lim.m) / 110000
               ) AS caixa
        FROM (
            SELECT ST_SetSRID(ST_MakePoint(d2.arredondar_coordenada(lng),
                                           d2.arredondar_coordenada(lat)), 4326) AS geom
            WHERE lat BETWEEN -90 AND 90 AND lng BETWEEN -180 AND 180
        ) p
        CROSS JOIN (
            SELECT least(greatest(coalesce(limite_m, 0), 0), 1000) AS d,
                   least(greatest(coalesce(margem_m, 0), 0), 1000) AS m
        ) lim
        WHERE lim.d > 0
    ),
    pedacos AS MATERIALIZED (
        SELECT pc.unidade_civica_id, pc.nivel, d2.distancia_m(pc.geom, ponto.y, ponto.x) AS metros
        FROM ponto
        CROSS JOIN LATERAL (
            SELECT q.unidade_civica_id, q.nivel, q.geom
            FROM d2.mirror_pieces q
            WHERE q.nivel <= 4 AND q.nivel IN (2, 4) AND q.geom && ponto.caixa
            LIMIT 1001
        ) pc
    ),
    perto AS MATERIALIZED (
        SELECT pc.unidade_civica_id, pc.nivel, min(pc.metros) AS metros
        FROM pedacos pc
        WHERE (SELECT count(*) FROM pedacos) <= 1000
        GROUP BY pc.unidade_civica_id, pc.nivel
        HAVING min(pc.metros) <= (SELECT ponto.alcance FROM ponto)
    ),
    -- The one município within reach, if it lies within distancia_m.
    municipio AS (
        SELECT m.unidade_civica_id, m.metros
        FROM perto m
        WHERE m.nivel = 4 AND m.metros <= (SELECT ponto.d FROM ponto)
          AND (SELECT count(*) FROM perto o WHERE o.nivel = 4) = 1
    ),
    -- The one bairro within reach, if it lies within distancia_m.
    bairro AS (
        SELECT b.unidade_civica_id, b.metros
        FROM perto b
        WHERE b.nivel = 2 AND b.metros <= (SELECT ponto.d FROM ponto)
          AND (SELECT count(*) FROM perto o WHERE o.nivel = 2) = 1
    ),
    achado AS (
        SELECT b.unidade_civica_id, 2 AS nivel, b.metros, mu.unidade_civica_id AS municipio
        FROM bairro b, municipio mu
        UNION ALL
        SELECT mu.unidade_civica_id, 4, mu.metros, mu.unidade_civica_id
        FROM municipio mu
    )
    SELECT a.unidade_civica_id, a.nivel, c.cadeia, a.metros
    FROM achado a
    CROSS JOIN LATERAL (
        SELECT coalesce(
            (SELECT cad.cadeia_ucs FROM d2.mirror_cadeias cad
             WHERE cad.unidade_civica_id = a.unidade_civica_id),
            d2.cadeia_ucs(a.unidade_civica_id)
        ) AS cadeia
    ) c
    -- A bairro only inside that município (its chain holds it); else the município.
    WHERE a.nivel = 4 OR a.municipio = ANY (c.cadeia)
    ORDER BY a.nivel
    LIMIT 1
$$;
