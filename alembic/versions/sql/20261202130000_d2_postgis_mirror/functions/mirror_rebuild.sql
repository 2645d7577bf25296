-- Rebuilds the whole mirror from core.uc_polygons (after changing max_vertices, or to
-- recover from anything). Returns how many rows ended in each state.
CREATE OR REPLACE FUNCTION d2.mirror_rebuild()
RETURNS TABLE (estado text, quantidade bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    TRUNCATE d2.mirror_pieces, d2.mirror_uc, d2.mirror_rejected;
    RETURN QUERY
        SELECT s.estado, count(*)
        FROM (SELECT d2.mirror_sync(u.id) AS estado FROM core.uc_polygons u) s
        GROUP BY s.estado
        ORDER BY s.estado;
    UPDATE d2.mirror_state SET versao = versao + 1, alterado_em = clock_timestamp();
END
$$;
