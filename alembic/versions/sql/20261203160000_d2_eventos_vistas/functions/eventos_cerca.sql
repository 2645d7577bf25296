-- What the readers' fence holds back now (d2 status, the metrics): committed events of
-- one type from transactions at or above the snapshot's xmin, which wait for an older
-- transaction still running somewhere in the cluster; and how long the oldest of them
-- has waited since it was inserted (0 when none waits).
-- SECURITY DEFINER for d2_worker, bounded by d2.eventos_tipos_lidos(); a function for the
-- reason given in eventos_ler.sql (the condition on coalesce(transacao, 0)).
CREATE OR REPLACE FUNCTION d2.eventos_cerca(p_tipo varchar, OUT retidos bigint, OUT atraso_s float8)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM d2.eventos_exigir_tipo(p_tipo);
    SELECT count(*),
           coalesce(extract(epoch FROM clock_timestamp() - min(e.publicado_em)), 0)::float8
    INTO retidos, atraso_s
    FROM core.event_log e
    WHERE e.tipo = p_tipo
      AND coalesce(e.transacao, '0'::xid8) >= pg_snapshot_xmin(pg_current_snapshot());
END
$$;
