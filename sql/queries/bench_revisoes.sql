-- Queries of `d2 bench revisoes` (d2/bench/revisoes.py): points drawn off the coast of
-- every coastal município of the territory loaded.

-- name: bench_revisoes_coast
-- The sea's edge, in pieces of at most 64 vertices (this session's table): the país's
-- outer rings and its holes of 1 km² or more (lagoons, estuaries: the mesh's gaps between
-- neighbours are far smaller), within the Atlantic side of Brazil (east of 53.5° W, and
-- east of 51.6° W north of 1.5° N): the land borders with other countries are left out.
CREATE TEMP TABLE costa AS
WITH partes AS (
    SELECT (ST_Dump(m.geom)).geom AS parte FROM d2.mirror_uc m WHERE m.nivel = 7
), aneis AS (
    SELECT r.path[1] AS n, r.geom AS anel FROM partes p CROSS JOIN LATERAL ST_DumpRings(p.parte) r
), mar AS (
    SELECT ST_ExteriorRing(a.anel) AS linha FROM aneis a
    WHERE a.n = 0 OR ST_Area(a.anel::geography) >= 1e6
), janela AS (
    SELECT ST_Union(ST_MakeEnvelope(-53.5, -34.5, -28, 1.5, 4326),
                    ST_MakeEnvelope(-51.6, 1.5, -28, 6, 4326)) AS j
)
SELECT ST_Subdivide(ST_Intersection(mar.linha, janela.j), 64) AS geom
FROM mar, janela
WHERE ST_Intersects(mar.linha, janela.j);

-- name: bench_revisoes_coast_index
CREATE INDEX ON pg_temp.costa USING gist (geom);

-- name: bench_revisoes_points
-- Points on the coast every %(espaco_m)s metres along the sea's edge, each moved to the
-- nearest point of the nearest município's boundary, with that município and the
-- boundary's azimuth there (degrees clockwise from north, on the ellipsoid, over ~6 m of it).
WITH amostras AS (
    SELECT (ST_Dump(ST_LineInterpolatePoints(
               c.geom,
               least(1.0, %(espaco_m)s / greatest(ST_Length(c.geom::geography), 1)),
               true))).geom AS s
    FROM pg_temp.costa c
), perto AS (
    SELECT pc.unidade_civica_id AS uc, a.s, ST_ExteriorRing(pc.geom) AS anel
    FROM amostras a
    CROSS JOIN LATERAL (
        SELECT q.unidade_civica_id, q.geom FROM d2.mirror_pieces q
        WHERE q.nivel = 4
        ORDER BY q.geom <-> a.s
        LIMIT 1
    ) pc
), fracoes AS (
    SELECT p.uc, p.anel, ST_LineLocatePoint(p.anel, ST_ClosestPoint(p.anel, p.s)) AS f,
           3 / greatest(ST_Length(p.anel::geography), 3) AS e
    FROM perto p
)
SELECT f.uc::text AS uc, ST_Y(b.b) AS lat, ST_X(b.b) AS lng,
       degrees(
           ST_Azimuth(ST_LineInterpolatePoint(f.anel, greatest(f.f - f.e, 0))::geography,
                      ST_LineInterpolatePoint(f.anel, least(f.f + f.e, 1))::geography)) AS az
FROM fracoes f
CROSS JOIN LATERAL (SELECT ST_LineInterpolatePoint(f.anel, f.f) AS b) b
ORDER BY 1, 2, 3;

-- name: bench_revisoes_municipios
-- Every município as loaded (the mirror's repaired geometry), by its IBGE code.
SELECT u.metadados ->> 'codigo_municipio' AS codigo, ST_AsBinary(m.geom) AS wkb
FROM d2.mirror_uc m
JOIN core.uc_polygons u ON u.id = m.uc_polygon_id
WHERE m.nivel = 4 AND u.metadados ? 'codigo_municipio';
