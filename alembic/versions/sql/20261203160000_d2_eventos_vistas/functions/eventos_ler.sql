-- The readers' batch (bus.ler_desde, the worker): events of some types after a position
-- (transacao, sequence_number), in that order, and only from transactions below the
-- statement's snapshot xmin: every transaction below it has finished, and a new one
-- always gets a higher id, so no event can later appear behind what was read (gap safety
-- without touching the producers). Events inserted before migration 20261203100000 have
-- transacao NULL and read as 0. The position's transacao, when NULL, is that of the
-- event numbered p_apos. Payloads whose text exceeds p_max_payload come without it
-- (NULL, with their size), and the batch stops before p_max_lote bytes of payloads (one
-- event at least): a huge payload is never sent to the worker. Several types (the
-- replica reads the three uc.poligono_* as one stream) are merged in the readers' order,
-- each read by its own ordered index range.
--
-- SECURITY DEFINER, for d2_worker, which holds no privilege on core.event_log: only the
-- types of d2.eventos_tipos_lidos(). A function rather than a query over the
-- security-barrier view d2.eventos because the range condition over
-- coalesce(transacao, 0) must reach the index event_log_tipo_transacao_idx, and a
-- barrier lets through only conditions PostgreSQL knows to be leakproof (coalesce is not
-- one of them). PL/pgSQL keeps the plan for the session.
CREATE OR REPLACE FUNCTION d2.eventos_ler(
    p_tipos varchar[], p_transacao xid8, p_apos bigint, p_limite integer,
    p_max_payload bigint, p_max_lote bigint
)
RETURNS TABLE (
    sequence_number bigint, event_id uuid, tipo varchar, versao_schema varchar,
    origem varchar, correlacao_id uuid, payload text, publicado_em timestamptz,
    transacao bigint, tamanho integer
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    IF coalesce(cardinality(p_tipos), 0) = 0 THEN
        RAISE EXCEPTION 'no event type to read' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM d2.eventos_exigir_tipo(t) FROM unnest(p_tipos) t;
    RETURN QUERY
    WITH candidatos AS MATERIALIZED (
        SELECT c.*
        FROM unnest(p_tipos) AS tipos (tipo)
        CROSS JOIN LATERAL (
            SELECT e.sequence_number, coalesce(e.transacao, '0'::xid8) AS transacao,
                   octet_length(t.texto) AS tamanho,
                   CASE WHEN octet_length(t.texto) <= p_max_payload THEN t.texto END AS texto
            FROM core.event_log e
            CROSS JOIN LATERAL (SELECT e.payload::text AS texto OFFSET 0) t
            WHERE e.tipo = tipos.tipo
              AND (coalesce(e.transacao, '0'::xid8), e.sequence_number) > (
                  coalesce(
                      p_transacao,
                      (SELECT coalesce(a.transacao, '0'::xid8) FROM core.event_log a
                       WHERE a.sequence_number = p_apos),
                      '0'::xid8),
                  p_apos)
              AND coalesce(e.transacao, '0'::xid8) < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY coalesce(e.transacao, '0'::xid8), e.sequence_number
            LIMIT p_limite
        ) c
        ORDER BY c.transacao, c.sequence_number
        LIMIT p_limite
    ),
    medidos AS (
        SELECT c.*,
               row_number() OVER w AS ordem,
               sum(coalesce(octet_length(c.texto), 0)) OVER w AS acumulado
        FROM candidatos c
        WINDOW w AS (ORDER BY c.transacao, c.sequence_number)
    )
    SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem,
           e.correlacao_id, m.texto, e.publicado_em, m.transacao::text::bigint, m.tamanho
    FROM medidos m
    JOIN core.event_log e ON e.sequence_number = m.sequence_number
    WHERE m.ordem = 1 OR m.acumulado <= p_max_lote
    ORDER BY m.transacao, m.sequence_number;
END
$$;
