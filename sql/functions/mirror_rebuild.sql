-- Rebuilds the whole mirror, its chains and its clean intervals from d2.uc_fonte
-- (core.uc_polygons or the event-synced replica, as d2.mirror_fonte() says)
-- (after changing max_vertices, or to recover from anything), consuming every recorded
-- change it sees; returns how many rows ended in each state. Same rules as
-- d2.mirror_aplicar: REPEATABLE READ (one snapshot for the changes and the polygons),
-- one applier at a time (d2.mirror_aplicador, taken by d2/territorio/mirror.py before the
-- snapshot), the version moves at the end. The builder's lock is taken at once too, in
-- the order an apply takes them, so a build running meanwhile cannot deadlock with the
-- truncation below (whose trigger takes it).
CREATE OR REPLACE FUNCTION d2.mirror_rebuild()
RETURNS TABLE (estado text, quantidade bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, public
SET jit = off
AS $$
BEGIN
    IF current_setting('transaction_isolation') NOT IN ('repeatable read', 'serializable') THEN
        RAISE EXCEPTION 'd2.mirror_rebuild() needs REPEATABLE READ (use `d2 mirror rebuild`)'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    LOCK TABLE d2.mirror_aplicador IN EXCLUSIVE MODE;
    LOCK TABLE d2.mirror_faixas_construtor IN EXCLUSIVE MODE;
    DELETE FROM d2.mirror_mudancas;
    TRUNCATE d2.mirror_pieces, d2.mirror_uc, d2.mirror_rejected;
    RETURN QUERY
        SELECT s.estado, count(*)
        FROM (SELECT d2.mirror_sync(u.id) AS estado FROM d2.uc_fonte u) s
        GROUP BY s.estado
        ORDER BY s.estado;
    -- Rows inserted one polygon at a time fill the pages of the resolver's index; built
    -- again, as its CREATE left it (sql/tables/mirror_pieces.sql). The TRUNCATE already
    -- holds the table against readers until the end.
    REINDEX INDEX d2.mirror_pieces_geom_mun_sub_idx;
    PERFORM d2.mirror_cadeias_rebuild();
    PERFORM d2.mirror_faixas_construir();
    UPDATE d2.mirror_state
    SET versao = versao + 1, alterado_em = clock_timestamp(), sincronizados_desde_indice = 0;
END
$$;
