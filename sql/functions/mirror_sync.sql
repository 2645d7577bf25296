-- Brings the PostGIS mirror of one polygon of d2.uc_fonte (core.uc_polygons, or the
-- event-synced replica) up to date (docs/design.md, decision 3).
-- GeoJSON -> geometry 4326, an invalid one repaired with ST_MakeValid
-- (method=structure, polygonal parts kept) only when it has at most
-- d2.mirror_state.max_vertices_reparo vertices, cut into pieces of at most
-- d2.mirror_state.max_vertices vertices. GEOS cannot be interrupted, and repairing a
-- self-crossing ring costs more than n² (docs/reliability.md, "a drawing that pins the
-- database"): above the cap an invalid polygon is not repaired but rejected, and the
-- importers hand over valid geometry (they repair in Python, before writing). A row
-- that cannot be read or repaired is recorded in d2.mirror_rejected with the reason and
-- a WARNING, never an error: a bad polygon must not block the writer of core.uc_polygons.
-- Each piece carries its source's priority: a community polygon (fonte 'comunitario')
-- yields to an official one of the same level in the resolver (prioridade 1 against 0).
-- SECURITY DEFINER: the trigger runs as whoever writes core.uc_polygons (the importer),
-- who needs no rights on schema d2.
CREATE OR REPLACE FUNCTION d2.mirror_sync(p_id uuid)
RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
-- ST_Subdivide's row estimates make the plan look expensive enough to JIT-compile,
-- which costs ~30x the real work per polygon.
SET jit = off
AS $$
DECLARE
    origem d2.uc_fonte%ROWTYPE;
    bruta geometry;
    valida geometry;
    reparada boolean := false;
    limite integer;
    prioridade smallint;
BEGIN
    DELETE FROM d2.mirror_pieces WHERE uc_polygon_id = p_id;
    DELETE FROM d2.mirror_uc WHERE uc_polygon_id = p_id;
    DELETE FROM d2.mirror_rejected WHERE uc_polygon_id = p_id;

    SELECT * INTO origem FROM d2.uc_fonte WHERE id = p_id;
    IF NOT FOUND THEN
        RETURN 'removido';
    END IF;

    BEGIN
        bruta := ST_Force2D(ST_SetSRID(ST_GeomFromGeoJSON(origem.geometria::text), 4326));
        IF GeometryType(bruta) NOT IN ('POLYGON', 'MULTIPOLYGON') THEN
            RAISE EXCEPTION 'geometria % não é poligonal', GeometryType(bruta);
        END IF;
        IF ST_IsValid(bruta) THEN
            valida := bruta;
        ELSIF ST_NPoints(bruta) > (SELECT s.max_vertices_reparo FROM d2.mirror_state s) THEN
            RAISE EXCEPTION 'geometria inválida (%) com % vértices: só se reparam até %',
                coalesce((ST_IsValidDetail(bruta)).reason, 'desconhecido'), ST_NPoints(bruta),
                (SELECT s.max_vertices_reparo FROM d2.mirror_state s);
        ELSE
            valida := ST_CollectionExtract(ST_MakeValid(bruta, 'method=structure'), 3);
            reparada := true;
        END IF;
        valida := ST_Multi(valida);
        IF valida IS NULL OR ST_IsEmpty(valida) THEN
            RAISE EXCEPTION 'geometria vazia após reparo';
        END IF;
    EXCEPTION WHEN OTHERS THEN
        INSERT INTO d2.mirror_rejected (uc_polygon_id, unidade_civica_id, nivel, nome, motivo)
        VALUES (origem.id, origem.unidade_civica_id, origem.nivel, origem.nome, SQLERRM);
        RAISE WARNING 'd2: polígono % (%) ignorado no espelho: %', origem.id, origem.nome, SQLERRM;
        RETURN 'rejeitado';
    END;

    SELECT max_vertices INTO limite FROM d2.mirror_state;

    prioridade := CASE WHEN origem.fonte = 'comunitario' THEN 1 ELSE 0 END;
    INSERT INTO d2.mirror_uc (
        uc_polygon_id, unidade_civica_id, nivel, geom, reparada, n_vertices, prioridade
    ) VALUES (
        origem.id, origem.unidade_civica_id, origem.nivel, valida, reparada,
        ST_NPoints(valida), prioridade
    );

    INSERT INTO d2.mirror_pieces (uc_polygon_id, unidade_civica_id, nivel, geom, prioridade)
    SELECT origem.id, origem.unidade_civica_id, origem.nivel, pedaco.geom, prioridade
    FROM (
        SELECT (ST_Dump(ST_Subdivide(valida, coalesce(limite, 64)))).geom AS geom
    ) pedaco
    WHERE GeometryType(pedaco.geom) = 'POLYGON';

    IF reparada THEN
        RAISE WARNING 'd2: polígono % (%) reparado com ST_MakeValid', origem.id, origem.nome;
        RETURN 'reparado';
    END IF;
    RETURN 'ok';
END
$$;
