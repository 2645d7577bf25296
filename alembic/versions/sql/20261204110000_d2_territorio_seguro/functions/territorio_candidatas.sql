-- The polygons of one level that touch a geometry: the community UCs at their current
-- (canonical) geometry with their anchor (the drawing that created them, or the version
-- a moderator accepted last: consensus is measured against it, so confirmations cannot
-- walk a UC away from where it was drawn), and every other UC of the mirror (official:
-- IBGE, OSM), whose anchor is its own geometry. A community UC is taken from
-- d2.territorio_ucs, written in the same transaction as its submission, so two drawings
-- of the same place in one drain meet each other even before the mirror catches up.
CREATE OR REPLACE FUNCTION d2.territorio_candidatas(p_geom geometry, p_nivel integer)
RETURNS TABLE (uc uuid, geom geometry, ancora geometry, comunitaria boolean)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT t.unidade_civica_id, t.geom, t.geom_ancora, true
    FROM d2.territorio_ucs t
    WHERE t.nivel = p_nivel AND t.ativa
      AND (t.geom && p_geom OR t.geom_ancora && p_geom)
      AND (ST_Intersects(t.geom, p_geom) OR ST_Intersects(t.geom_ancora, p_geom))
    UNION ALL
    SELECT m.unidade_civica_id, m.geom, m.geom, false
    FROM d2.mirror_uc m
    WHERE m.nivel = p_nivel AND m.geom && p_geom AND ST_Intersects(m.geom, p_geom)
      AND NOT EXISTS (
          SELECT 1 FROM d2.territorio_ucs t WHERE t.unidade_civica_id = m.unidade_civica_id
      )
$$;
