-- What a polygon of a uc.poligono_adicionado / _atualizado would take from the territory
-- (a forged event could otherwise take whole UCs' places), for d2.replica_aplicar, which asks only for events that are not
-- D-2's importers'. Against the mirror as it stands (d2.mirror_uc), with bounding boxes
-- and interior points only: no repair, no overlay, nothing whose cost a hostile geometry
-- could blow up (a point-in-polygon test on an invalid ring is still linear).
--   recusa: why the polygon is refused, or NULL:
--     - its bounding box reaches more than 0.01° beyond its parent's (when the mirror
--       has the parent): a child lies inside its parent (the shared data: 0.0004° at
--       most, from simplifying each level on its own);
--     - it covers the interior point (ST_PointOnSurface) of two or more UCs of its level
--       or coarser that are neither its own UC nor its ancestors (the shared data: none
--       covers one; one is let through for a split published before the old polygon
--       shrinks), or holds the whole bounding box of more than 20 of them (the shared
--       data: 9 at most, a município around small neighbours);
--   toma: it covers the interior point of a coarser UC (its parent included) that the
--     polygon's previous version did not: it takes answers that UC gave. Such events
--     count toward the replica's breaker, as removals do (d2.replica_aplicar).
-- A geometry that cannot be read is no business of this check: the mirror lists it in
-- d2.mirror_rejected, as before. No SET search_path: it runs with its caller's,
-- d2.replica_aplicar's, pinned by sql/grants.sql; calls are typed to match exactly.
CREATE OR REPLACE FUNCTION d2.replica_captura(
    p_geometria jsonb, p_nivel integer, p_uc uuid, p_poligono uuid, p_pai uuid
)
RETURNS TABLE (recusa text, toma boolean)
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    g geometry;
    caixa_pai box2d;
    ancestrais uuid[];
    anterior geometry;
    pontos integer;
    caixas integer;
BEGIN
    BEGIN
        g := ST_SetSRID(ST_GeomFromGeoJSON(p_geometria::text), 4326);
    EXCEPTION WHEN OTHERS THEN
        RETURN QUERY SELECT NULL::text, false;
        RETURN;
    END;
    IF g IS NULL OR ST_IsEmpty(g) THEN
        RETURN QUERY SELECT NULL::text, false;
        RETURN;
    END IF;

    IF p_pai IS NOT NULL THEN
        SELECT ST_Extent(m.geom) INTO caixa_pai
        FROM d2.mirror_uc m WHERE m.unidade_civica_id = p_pai;
        IF caixa_pai IS NOT NULL
           AND NOT (g @ ST_Expand(caixa_pai, 0.01::double precision)::geometry) THEN
            RETURN QUERY SELECT pg_catalog.format(
                'its bounding box reaches beyond its parent %s''s', p_pai), false;
            RETURN;
        END IF;
        SELECT c.cadeia_ucs INTO ancestrais
        FROM d2.mirror_cadeias c WHERE c.unidade_civica_id = p_pai;
    END IF;
    ancestrais := pg_catalog.array_append(coalesce(ancestrais, ARRAY[]::uuid[]), p_uc);

    SELECT count(*) INTO pontos
    FROM (
        SELECT 1
        FROM d2.mirror_uc m
        WHERE m.geom && g
          AND m.nivel >= p_nivel
          AND m.uc_polygon_id <> p_poligono
          AND m.unidade_civica_id <> ALL (ancestrais)
          AND ST_Intersects(g, ST_PointOnSurface(m.geom))
        LIMIT 2
    ) t;
    SELECT count(*) INTO caixas
    FROM (
        SELECT 1
        FROM d2.mirror_uc m
        WHERE m.geom @ g
          AND m.nivel >= p_nivel
          AND m.uc_polygon_id <> p_poligono
          AND m.unidade_civica_id <> ALL (ancestrais)
        LIMIT 21
    ) t;
    IF pontos >= 2 OR caixas > 20 THEN
        RETURN QUERY SELECT pg_catalog.format(
            'it would take the place of %s UCs of level %s or coarser (their interior points'
            ' or whole bounding boxes)',
            CASE WHEN caixas > 20 THEN 'more than 20' ELSE 'two or more' END, p_nivel), false;
        RETURN;
    END IF;

    SELECT m.geom INTO anterior FROM d2.mirror_uc m WHERE m.uc_polygon_id = p_poligono;
    RETURN QUERY SELECT NULL::text, EXISTS (
        SELECT 1
        FROM d2.mirror_uc m
        WHERE m.geom && g
          AND m.nivel > p_nivel
          AND m.unidade_civica_id <> p_uc
          AND ST_Intersects(g, ST_PointOnSurface(m.geom))
          AND NOT coalesce(ST_Intersects(anterior, ST_PointOnSurface(m.geom)), false)
    );
END
$$;
