-- Validation and consensus of one citizen-drawn polygon (spec 8.5, layer 2), read-only.
--
-- Validation, in order, each failure a 'rejeitada' with its reason: a GeoJSON Polygon or
-- MultiPolygon, coordinates in range, every ring closed, at most the level's vertex cap,
-- valid (a self-intersecting drawing is repaired only when the repair keeps the area as
-- drawn within 1%: a bowtie's halves cancel out as drawn, so it is refused), area between
-- the level's bounds (d2.territorio_limites), and at least 95% of it inside one município
-- of the mirror. Exterior rings are made counter-clockwise, so the order a client drew
-- the ring in does not matter.
--
-- Consensus against the existing polygons of the same level it touches (the mirror's,
-- and the community UCs of d2.territorio_ucs, which are current even before the mirror
-- has caught up): overlap is intersection over union, so a small drawing inside a large
-- polygon is not "already mapped".
--   > 0.8        confirmacao of that polygon
--   0.5 .. 0.8   alternativa of it (a moderator reviews it)
--   < 0.5        nova UC
-- The parent is the município for a bairro (level 2); for a micro-area (level 1) the
-- bairro holding 95% of it, else the município.
CREATE OR REPLACE FUNCTION d2.territorio_avaliar(p_geometria jsonb, p_nivel integer)
RETURNS TABLE (
    decisao text,
    motivo text,
    geom geometry(MultiPolygon, 4326),
    area_m2 double precision,
    reparada boolean,
    municipio_uc_id uuid,
    parent_uc_id uuid,
    alvo_uc_id uuid,
    sobreposicao double precision
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
BEGIN
    reparada := false;
    SELECT * INTO lim FROM d2.territorio_limites l WHERE l.nivel = p_nivel;
    IF NOT FOUND THEN
        decisao := 'rejeitada';
        motivo := pg_catalog.format('nível %s não aceita polígonos desenhados (só 1 e 2)', p_nivel);
        RETURN NEXT;
        RETURN;
    END IF;
    IF jsonb_typeof(p_geometria) IS DISTINCT FROM 'object'
       OR p_geometria ->> 'type' NOT IN ('Polygon', 'MultiPolygon') THEN
        decisao := 'rejeitada';
        motivo := pg_catalog.format('geometria não poligonal (%s)',
                         coalesce(p_geometria ->> 'type', jsonb_typeof(p_geometria), 'nula'));
        RETURN NEXT;
        RETURN;
    END IF;

    BEGIN
        g := ST_SetSRID(ST_Force2D(ST_GeomFromGeoJSON(p_geometria::text)), 4326::integer);
    EXCEPTION WHEN OTHERS THEN
        decisao := 'rejeitada';
        motivo := 'GeoJSON ilegível: ' || SQLERRM;
        RETURN NEXT;
        RETURN;
    END;
    IF g IS NULL OR ST_IsEmpty(g) THEN
        decisao := 'rejeitada';
        motivo := 'geometria vazia';
        RETURN NEXT;
        RETURN;
    END IF;
    IF ST_XMin(g) < -180 OR ST_XMax(g) > 180 OR ST_YMin(g) < -90 OR ST_YMax(g) > 90 THEN
        decisao := 'rejeitada';
        motivo := 'coordenadas fora de [-180, 180] × [-90, 90]';
        RETURN NEXT;
        RETURN;
    END IF;
    IF ST_NPoints(g) > lim.max_vertices THEN
        decisao := 'rejeitada';
        motivo := pg_catalog.format('%s vértices; o máximo do nível %s é %s',
                         ST_NPoints(g), p_nivel, lim.max_vertices);
        RETURN NEXT;
        RETURN;
    END IF;
    IF EXISTS (
        SELECT 1
        FROM ST_Dump(g) AS parte, LATERAL ST_DumpRings(parte.geom) AS anel
        WHERE NOT ST_IsClosed(ST_ExteriorRing(anel.geom))
    ) THEN
        decisao := 'rejeitada';
        motivo := 'anel não fechado (o último ponto deve repetir o primeiro)';
        RETURN NEXT;
        RETURN;
    END IF;

    g := ST_ForcePolygonCCW(g);
    IF NOT ST_IsValid(g) THEN
        detalhe := (ST_IsValidDetail(g)).reason;
        area_desenhada := abs(ST_Area(g));
        reparo := ST_CollectionExtract(ST_MakeValid(g), 3::integer);
        IF reparo IS NULL OR ST_IsEmpty(reparo) OR area_desenhada = 0
           OR abs(ST_Area(reparo) - area_desenhada) > 0.01 * area_desenhada THEN
            decisao := 'rejeitada';
            motivo := 'geometria inválida sem reparo fiel: ' || coalesce(detalhe, 'desconhecido');
            RETURN NEXT;
            RETURN;
        END IF;
        g := ST_ForcePolygonCCW(reparo);
        reparada := true;
    END IF;
    g := ST_Multi(g);
    area_m2 := ST_Area(g::geography);
    IF area_m2 < lim.area_min_m2 OR area_m2 > lim.area_max_m2 THEN
        decisao := 'rejeitada';
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
        decisao := 'rejeitada';
        motivo := 'fora de um município da base (menos de 95% da área dentro de um só)';
        municipio_uc_id := NULL;
        RETURN NEXT;
        RETURN;
    END IF;
    geom := g;

    parent_uc_id := municipio_uc_id;
    IF p_nivel = 1 THEN
        SELECT c.uc INTO parent_uc_id
        FROM d2.territorio_candidatas(g, 2) c
        WHERE ST_Area(ST_Intersection(c.geom, g)) >= 0.95 * ST_Area(g)
        ORDER BY ST_Area(ST_Intersection(c.geom, g)) DESC, c.uc
        LIMIT 1;
        parent_uc_id := coalesce(parent_uc_id, municipio_uc_id);
    END IF;

    SELECT c.uc, ST_Area(ST_Intersection(c.geom, g)) / NULLIF(ST_Area(ST_Union(c.geom, g)), 0)
    INTO alvo_uc_id, sobreposicao
    FROM d2.territorio_candidatas(g, p_nivel) c
    ORDER BY 2 DESC NULLS LAST, c.uc
    LIMIT 1;
    sobreposicao := coalesce(sobreposicao, 0);
    IF sobreposicao > 0.8 THEN
        decisao := 'confirmacao';
    ELSIF sobreposicao >= 0.5 THEN
        decisao := 'alternativa';
    ELSE
        decisao := 'nova';
        alvo_uc_id := NULL;
    END IF;
    RETURN NEXT;
END
$$;
