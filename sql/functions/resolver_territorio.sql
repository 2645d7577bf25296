-- A fixed interface (other tools and psql users call it: its name and columns do not
-- change), and the one definition of the answer: the smallest civic unit containing the
-- point and its parent chain; zero rows when no polygon contains it.
--   * boundary-inclusive (a point on a border or on a subdivision cut line is inside,
--     docs/design.md, decision 1); smallest nivel first; at the same level an official
--     polygon (IBGE, OSM) before a community one (prioridade), never an id chosen by a
--     drawing; then unidade_civica_id: same point, same answer; coordinates rounded to 5
--     decimals first, so the answer is a pure function of the cache key
--     (docs/design.md, decision 2).
--   * First the point's band in d2.mirror_faixas: one B-tree probe finds the run of
--     clean intervals left of the point, and width_bucket the last limit at or left of
--     it, limites[i]. An odd i is an interval's start (an even one an end): strictly
--     inside that interval, its answer is the answer and no geometry is touched (97% of
--     random points in Brazil, shared data).
--   * Otherwise the point lies in the gap after interval i / 2 (on the start of
--     interval k it lies in the closed gap before it, k - 1 = i / 2): the same row lists
--     the level <= 4 pieces whose box meets that gap, in the answer's order; the first
--     that holds the point is the answer, fetched by key (most points near a border).
--   * Otherwise (no row, a gap with no list, or no listed piece holds the point: the
--     sea, a gap between municípios) two GIST tiers: levels <= 4 (municípios and
--     below), then >= 5, each probing its own partial index; the first tier with an answer wins (every level of
--     a tier sorts before every level of the next). One probe for bairros and
--     municípios, not one each: a point near a border paid both. ST_Covers: for a
--     point the same predicate as ST_Intersects (the closed polygon holds it), tested
--     about twice as fast. The point carries its bounding box (postgis_addbbox) into
--     that tier's search: PostGIS reads the query's box at every entry it tests, and
--     computing it from a bare point each time cost ~30 % of the search.
--   * The chain from d2.mirror_cadeias (d2.cadeia_ucs, the source of truth, for a UC not
--     precomputed).
--   * While changes of core.uc_polygons wait to be applied, a WARNING says so, once per
--     statement (d2.mirror_aviso, an InitPlan on the one-row rounding step, so no node is
--     added per point): the answer is the mirror's, not silently.
-- A plain SQL function with no SET clause, so PostgreSQL inlines it where it is called
-- (`CROSS JOIN LATERAL d2.resolver_territorio(lat, lng)`): one point from psql, a row per
-- stored resolution in re-georeferencing, and the batch d2.resolver_territorios all run
-- this same query. Tests compare it with the plain predicate over d2.mirror_pieces on
-- borders, vertices, band edges and interval ends (tests/support/territorio.py, resolver_ingenuo).
CREATE OR REPLACE FUNCTION d2.resolver_territorio(lat double precision, lng double precision)
RETURNS TABLE (unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[])
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT achado.unidade_civica_id, achado.nivel,
           coalesce(cad.cadeia_ucs, d2.cadeia_ucs(achado.unidade_civica_id))
    FROM (
        SELECT d2.arredondar_coordenada(lng) AS x, d2.arredondar_coordenada(lat) AS y
        WHERE (SELECT d2.mirror_aviso())
        OFFSET 0
    ) r
    CROSS JOIN LATERAL (
        (
            SELECT g.unidade_civica_id, g.nivel
            FROM (
                SELECT f.unidades, f.niveis, f.limites, f.corte, f.pedacos,
                       width_bucket(r.x, f.limites) AS i
                FROM d2.mirror_faixas f
                WHERE f.faixa = floor(r.y * d2.faixas_por_grau())::integer
                  AND f.x_inicio < r.x
                ORDER BY f.x_inicio DESC
                LIMIT 1
            ) f
            CROSS JOIN LATERAL (
                (
                    SELECT f.unidades[(f.i + 1) / 2] AS unidade_civica_id,
                           f.niveis[(f.i + 1) / 2] AS nivel
                    WHERE f.i % 2 = 1 AND r.x > f.limites[f.i]
                )
                UNION ALL
                (
                    SELECT p.unidade_civica_id, p.nivel
                    FROM unnest(f.pedacos[f.corte[f.i / 2]:f.corte[f.i / 2 + 1] - 1])
                         WITH ORDINALITY AS c (id, ordem)
                    JOIN d2.mirror_pieces p ON p.id = c.id
                    WHERE _ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(r.x, r.y), 4326))
                    ORDER BY c.ordem
                    LIMIT 1
                )
                LIMIT 1
            ) g
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel <= 4
              AND ST_Covers(p.geom, postgis_addbbox(ST_SetSRID(ST_MakePoint(r.x, r.y), 4326)))
            ORDER BY p.nivel, p.prioridade, p.unidade_civica_id
            LIMIT 1
        )
        UNION ALL
        (
            SELECT p.unidade_civica_id, p.nivel
            FROM d2.mirror_pieces p
            WHERE p.nivel >= 5 AND ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(r.x, r.y), 4326))
            ORDER BY p.nivel, p.prioridade, p.unidade_civica_id
            LIMIT 1
        )
        LIMIT 1
    ) achado
    LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = achado.unidade_civica_id
$$;
