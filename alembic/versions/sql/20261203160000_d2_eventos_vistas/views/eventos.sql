-- core.event_log as d2_worker sees it: the types of d2.eventos_tipos_lidos() only.
-- security_barrier: a condition of the reader's (a function it wrote, e.g. in pg_temp,
-- that raises a NOTICE of its argument) runs only on rows this filter already let
-- through, unless it is leakproof. Conditions built from leakproof operators on the
-- columns (=, <, > on uuid, bigint, text, xid8) still reach the table's indexes; one
-- over coalesce(transacao, 0) cannot, so the reads in (transacao, sequence_number)
-- order go through the d2.eventos_* functions instead.
CREATE OR REPLACE VIEW d2.eventos WITH (security_barrier) AS
SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem, e.correlacao_id,
       e.payload, e.publicado_em, e.transacao
FROM core.event_log e
WHERE e.tipo = ANY (d2.eventos_tipos_lidos());
