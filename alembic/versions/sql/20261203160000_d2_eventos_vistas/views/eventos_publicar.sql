-- Where d2_worker publishes: an auto-updatable view of core.event_log that accepts only
-- the types of d2.eventos_tipos_publicados() (CHECK OPTION: anything else fails with
-- "new row violates check option"). d2_worker holds INSERT on it and nothing on the
-- table; sequence_number and transacao take the table's defaults, as for any producer.
CREATE OR REPLACE VIEW d2.eventos_publicar AS
SELECT e.sequence_number, e.event_id, e.tipo, e.versao_schema, e.origem, e.correlacao_id,
       e.payload, e.publicado_em, e.transacao
FROM core.event_log e
WHERE e.tipo = ANY (d2.eventos_tipos_publicados())
WITH CASCADED CHECK OPTION;
