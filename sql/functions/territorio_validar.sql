-- Validation of one citizen-drawn polygon (spec 8.5, layer 2), read-only: its clean
-- geometry, or why it is refused.
--
-- In order, each failure a reason: a GeoJSON Polygon or MultiPolygon, readable, not
-- empty, coordinates in range, at most the level's vertex cap, every ring closed, its
-- bounding box over some município of the mirror, valid — a self-intersecting drawing is
-- repaired only when it has at most the level's repair cap of vertices and the repair
-- keeps the area as drawn within 1% (a bowtie's halves cancel out as drawn, so it is
-- refused) —, area between the level's bounds, and at least 95% of it inside one
-- município of the mirror. Exterior rings are made counter-clockwise, so the order a
-- client drew the ring in does not matter.
--
-- Cheap checks first, and every step before the repair costs linear time or an index
-- probe: GEOS cannot be interrupted (neither statement_timeout nor pg_cancel_backend
-- reach it), and repairing a self-crossing ring costs more than n² (a 401-vertex star:
-- 3.6 s with method=structure, minutes with the default linework method; 101 vertices:
-- 0.03 s). So only small drawings are repaired, always with method=structure, and the
-- cap bounds the worst case (docs/reliability.md, threat "a drawing that pins the
-- database"). Every reason is a fixed text of this function's own, never an error
-- message of PostGIS or GEOS.
CREATE OR REPLACE FUNCTION d2.territorio_validar(p_geometria jsonb, p_nivel integer)
RETURNS TABLE (
    motivo text,
    geom geometry(MultiPolygon, 4326),
    area_m2 double precision,
    reparada boolean,
    municipio_uc_id uuid
)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    lim d2.territorio_limites%ROWTYPE;
    g geometry;
    reparo geometry;
    area_desenhada double precision;
    detalhe text;
    fracao double precision;
    vertices integer;
BEGIN
    reparada := false;
    SELECT * INTO lim FROM d2.territorio_limites l WHERE l.nivel = p_nivel;
    IF NOT FOUND THEN
        motivo := pg_catalog.format('nível %s não aceita polígonos desenhados (só 1 e 2)', p_nivel);
        RETURN NEXT;
        RETURN;
    END IF;
    IF jsonb_typeof(p_geometria) IS DISTINCT FROM 'object'
       OR p_geometria ->> 'type' NOT IN ('Polygon', 'MultiPolygon') THEN
        motivo := pg_catalog.format('geometria não poligonal (%s)',
                         coalesce(p_geometria ->> 'type', jsonb_typeof(p_geometria), 'nula'));
        RETURN NEXT;
        RETURN;
    END IF;

    BEGIN
        g := ST_SetSRID(ST_Force2D(ST_GeomFromGeoJSON(p_geometria::text)), 4326::integer);
    EXCEPTION WHEN OTHERS THEN
        -- Fixed texts, never PostGIS's own: its message may quote the input, and the
        -- reason travels to moderators' screens and logs.
        motivo := CASE
            WHEN SQLERRM ILIKE '%ordinates%' AND SQLERRM NOT ILIKE '%coordinates%'
                THEN 'GeoJSON ilegível: um ponto sem longitude e latitude'
            WHEN SQLERRM ILIKE '%nested%'
                THEN 'GeoJSON ilegível: coordenadas mal aninhadas para o tipo'
            WHEN SQLERRM ILIKE '%coordinates%'
                THEN 'GeoJSON ilegível: coordenadas ausentes ou não numéricas'
            ELSE 'GeoJSON ilegível'
        END;
        RETURN NEXT;
        RETURN;
    END;
    IF g IS NULL OR ST_IsEmpty(g) THEN
        motivo := 'geometria vazia';
        RETURN NEXT;
        RETURN;
    END IF;
    IF ST_XMin(g) < -180 OR ST_XMax(g) > 180 OR ST_YMin(g) < -90 OR ST_YMax(g) > 90 THEN
        motivo := 'coordenadas fora de [-180, 180] × [-90, 90]';
        RETURN NEXT;
        RETURN;
    END IF;
    vertices := ST_NPoints(g);
    IF vertices > lim.max_vertices THEN
        motivo := pg_catalog.format('%s vértices; o máximo do nível %s é %s',
                         vertices, p_nivel, lim.max_vertices);
        RETURN NEXT;
        RETURN;
    END IF;
    IF EXISTS (
        SELECT 1
        FROM ST_Dump(g) AS parte, LATERAL ST_DumpRings(parte.geom) AS anel
        WHERE NOT ST_IsClosed(ST_ExteriorRing(anel.geom))
    ) THEN
        motivo := 'anel não fechado (o último ponto deve repetir o primeiro)';
        RETURN NEXT;
        RETURN;
    END IF;
    -- One index probe on the pieces' boxes: far from every município, nothing more is
    -- computed.
    IF NOT EXISTS (
        SELECT 1 FROM d2.mirror_pieces p WHERE p.nivel = 4 AND p.geom && g
    ) THEN
        motivo := 'fora de um município da base (menos de 95% da área dentro de um só)';
        RETURN NEXT;
        RETURN;
    END IF;

    g := ST_ForcePolygonCCW(g);
    IF NOT ST_IsValid(g) THEN
        -- GEOS's reason, one of a fixed set, named in fixed words (its text is not kept).
        detalhe := CASE (ST_IsValidDetail(g)).reason
            WHEN 'Self-intersection' THEN 'auto-interseção'
            WHEN 'Ring Self-intersection' THEN 'anel que se cruza'
            WHEN 'Too few points in geometry component' THEN 'anel com poucos pontos'
            WHEN 'Hole lies outside shell' THEN 'buraco fora do contorno'
            WHEN 'Nested holes' THEN 'buracos aninhados'
            WHEN 'Interior is disconnected' THEN 'interior desconexo'
            WHEN 'Nested shells' THEN 'contornos aninhados'
            WHEN 'Duplicate Rings' THEN 'anéis repetidos'
            WHEN 'Invalid Coordinate' THEN 'coordenada inválida'
            WHEN 'Ring is not closed' THEN 'anel não fechado'
            ELSE 'motivo não identificado'
        END;
        IF vertices > lim.max_vertices_reparo THEN
            motivo := pg_catalog.format(
                'geometria inválida (%s) com %s vértices: só se reparam desenhos de até %s',
                detalhe, vertices, lim.max_vertices_reparo);
            RETURN NEXT;
            RETURN;
        END IF;
        area_desenhada := abs(ST_Area(g));
        reparo := ST_CollectionExtract(ST_MakeValid(g, 'method=structure'), 3::integer);
        IF reparo IS NULL OR ST_IsEmpty(reparo) OR area_desenhada = 0
           OR abs(ST_Area(reparo) - area_desenhada) > 0.01 * area_desenhada THEN
            motivo := 'geometria inválida sem reparo fiel: ' || detalhe;
            RETURN NEXT;
            RETURN;
        END IF;
        g := ST_ForcePolygonCCW(reparo);
        reparada := true;
    END IF;
    g := ST_Multi(g);
    area_m2 := ST_Area(g::geography);
    IF area_m2 < lim.area_min_m2 OR area_m2 > lim.area_max_m2 THEN
        motivo := pg_catalog.format('área %s m² fora de [%s, %s] m² para o nível %s',
                         round(area_m2::numeric), lim.area_min_m2, lim.area_max_m2, p_nivel);
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT m.unidade_civica_id, ST_Area(ST_Intersection(m.geom, g)) / ST_Area(g)
    INTO municipio_uc_id, fracao
    FROM d2.mirror_uc m
    WHERE m.nivel = 4 AND m.geom && g AND ST_Intersects(m.geom, g)
    ORDER BY 2 DESC, m.unidade_civica_id
    LIMIT 1;
    IF municipio_uc_id IS NULL OR fracao < 0.95 THEN
        motivo := 'fora de um município da base (menos de 95% da área dentro de um só)';
        municipio_uc_id := NULL;
        RETURN NEXT;
        RETURN;
    END IF;
    geom := g;
    RETURN NEXT;
END
$$;
