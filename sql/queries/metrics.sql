-- name: metrics_gauges
-- What the worker's gauges show, in one round trip: events behind the cursor, pending
-- dead letters and reviews, and when the cursor last moved (every handled batch moves
-- it), as epoch seconds. Cheap: index range scans and small tables only.
SELECT
    coalesce((
        SELECT count(*) FROM core.event_log e, d2.consumer_offset o
        WHERE o.tipo_evento = %(tipo)s AND e.tipo = %(tipo)s
          AND (coalesce(e.transacao, '0'::xid8), e.sequence_number) > (
              coalesce(
                  (SELECT t.last_transacao FROM d2.consumer_offset_transacao t
                   WHERE t.tipo_evento = o.tipo_evento AND t.last_sequence = o.last_sequence),
                  (SELECT coalesce(x.transacao, '0'::xid8) FROM core.event_log x
                   WHERE x.sequence_number = o.last_sequence),
                  '0'::xid8),
              o.last_sequence)
    ), 0) AS lag,
    (
        SELECT count(*) FROM core.dead_letter_queue d
        WHERE d.consumidor = %(consumidor)s AND d.status = 'pendente'
    ) AS dead_letters,
    (SELECT count(*) FROM d2.revisoes_geo_pendentes) AS revisoes_pendentes,
    (
        SELECT extract(epoch FROM o.updated_at)::double precision
        FROM d2.consumer_offset o WHERE o.tipo_evento = %(tipo)s
    ) AS ultimo_evento;
