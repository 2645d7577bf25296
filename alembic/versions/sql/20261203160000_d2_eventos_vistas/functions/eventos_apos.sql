-- How many events of one type lie after a position (transacao, sequence_number), in the
-- readers' order: the consumer's lag (metrics, d2 status).
-- SECURITY DEFINER for d2_worker, bounded by d2.eventos_tipos_lidos(); a function for the
-- reason given in eventos_ler.sql (the condition on coalesce(transacao, 0)).
CREATE OR REPLACE FUNCTION d2.eventos_apos(p_tipo varchar, p_transacao xid8, p_sequencia bigint)
RETURNS bigint
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM d2.eventos_exigir_tipo(p_tipo);
    SELECT count(*) INTO n
    FROM core.event_log e
    WHERE e.tipo = p_tipo
      AND (coalesce(e.transacao, '0'::xid8), e.sequence_number) > (p_transacao, p_sequencia);
    RETURN n;
END
$$;
