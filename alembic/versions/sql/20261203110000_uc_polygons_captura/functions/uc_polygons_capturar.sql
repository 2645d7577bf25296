-- The only work D-2 adds to a writer of core.uc_polygons (DESIGN "What D-2 may do to
-- core"): once per statement, the ids of the rows it inserted, updated or deleted go into
-- d2.mirror_mudancas; a TRUNCATE leaves one row with no id (everything changed). The
-- mirror, chains and clean intervals are rebuilt later by D-2 itself (d2.mirror_aplicar),
-- outside the writer's transaction. No lock beyond the insert's own, no NOTIFY (it would
-- take a database-wide lock at the writer's commit).
-- SECURITY DEFINER so that a writer needs no right on schema d2: it can only add rows
-- naming the polygons its own statement touched. search_path pinned, everything
-- schema-qualified, EXECUTE revoked from PUBLIC (a trigger function cannot be called
-- directly anyway).
CREATE OR REPLACE FUNCTION d2.uc_polygons_capturar()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT n.id, n.unidade_civica_id FROM novas n;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT a.id, a.unidade_civica_id FROM antigas a
        UNION ALL
        SELECT n.id, n.unidade_civica_id FROM novas n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT a.id, a.unidade_civica_id FROM antigas a;
    ELSE
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        VALUES (NULL::uuid, NULL::uuid);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION d2.uc_polygons_capturar() FROM PUBLIC;
