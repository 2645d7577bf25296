-- Re-georeferencing follows the mirror (spec 8.3): every change of d2.mirror_uc leaves
-- the area it concerns in d2.regeo_areas, in the same transaction, so the follow-up
-- (d2/ops/regeo.py) sees it exactly when the resolver sees the new mirror. Both the old and
-- the new geometry are recorded: a point that left a polygon and a point that entered
-- one may each have another answer now. A TRUNCATE (a rebuild) records one row with no
-- geometry: everything may have changed.
-- Runs as whoever applies the mirror (the owner, or d2_worker in the worker); d2 is not
-- writable by others, and the function resolves nothing outside pg_catalog and d2.
CREATE OR REPLACE FUNCTION d2.mirror_uc_regeo_areas()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO d2.regeo_areas (geom, unidade_civica_id)
        SELECT n.geom, n.unidade_civica_id FROM novas n;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO d2.regeo_areas (geom, unidade_civica_id)
        SELECT a.geom, a.unidade_civica_id FROM antigas a
        UNION ALL
        SELECT n.geom, n.unidade_civica_id FROM novas n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO d2.regeo_areas (geom, unidade_civica_id)
        SELECT a.geom, a.unidade_civica_id FROM antigas a;
    ELSE
        INSERT INTO d2.regeo_areas (geom, unidade_civica_id) VALUES (NULL, NULL);
    END IF;
    RETURN NULL;
END
$$;
