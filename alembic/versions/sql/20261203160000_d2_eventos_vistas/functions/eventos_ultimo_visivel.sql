-- The last event of one type readers can see now (below the snapshot's xmin, see
-- eventos_ler.sql), as the readers' position; no row when there is none. The boot seeds
-- a new cursor there (spec 4.4).
-- SECURITY DEFINER for d2_worker, bounded by d2.eventos_tipos_lidos(); a function for the
-- reason given in eventos_ler.sql (the order by coalesce(transacao, 0)).
CREATE OR REPLACE FUNCTION d2.eventos_ultimo_visivel(
    p_tipo varchar, OUT transacao xid8, OUT sequence_number bigint
)
RETURNS SETOF record
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM d2.eventos_exigir_tipo(p_tipo);
    RETURN QUERY
    SELECT coalesce(e.transacao, '0'::xid8), e.sequence_number
    FROM core.event_log e
    WHERE e.tipo = p_tipo
      AND coalesce(e.transacao, '0'::xid8) < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY coalesce(e.transacao, '0'::xid8) DESC, e.sequence_number DESC
    LIMIT 1;
END
$$;
