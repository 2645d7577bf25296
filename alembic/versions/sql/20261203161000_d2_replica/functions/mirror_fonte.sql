-- Where the mirror reads its polygons (d2.mirror_state.fonte): 'core', the MVP's reading
-- of core.uc_polygons, or 'eventos', the replica d2.replica_uc that uc.poligono_* events
-- feed (spec Phase 2). Set by `d2 mirror fonte`, which rebuilds the mirror from the new
-- source. Read once per statement by d2.uc_fonte.
CREATE OR REPLACE FUNCTION d2.mirror_fonte()
RETURNS varchar
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT s.fonte FROM d2.mirror_state s
$$;
