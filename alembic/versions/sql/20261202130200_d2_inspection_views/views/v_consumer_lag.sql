-- How far behind the consumer is: highest sequence of its event type minus its cursor.
CREATE OR REPLACE VIEW d2.v_consumer_lag AS
SELECT o.tipo_evento,
       o.last_sequence AS cursor,
       coalesce(m.maior, 0) AS maior_sequencia,
       (
           SELECT count(*) FROM core.event_log e
           WHERE e.tipo = o.tipo_evento AND e.sequence_number > o.last_sequence
       ) AS eventos_pendentes,
       coalesce(m.maior, 0) - o.last_sequence AS lag,
       o.updated_at AS cursor_movido_em
FROM d2.consumer_offset o
LEFT JOIN LATERAL (
    SELECT max(e.sequence_number) AS maior FROM core.event_log e WHERE e.tipo = o.tipo_evento
) m ON true;
