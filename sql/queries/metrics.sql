-- name: metrics_gauges
-- What the worker's gauges show, in one round trip: events behind the cursor, pending
-- dead letters and reviews, and when the cursor last moved (every handled batch moves
-- it), as epoch seconds. Cheap: index range scans and small tables only.
SELECT
    coalesce((
        SELECT d2.eventos_apos(%(tipo)s::varchar, p.transacao, p.sequencia)
        FROM d2.consumer_posicao(%(tipo)s) p
        WHERE p.sequencia IS NOT NULL
    ), 0) AS lag,
    (
        SELECT count(*) FROM d2.dead_letters d
        WHERE d.consumidor = %(consumidor)s AND d.status = 'pendente'
    ) AS dead_letters,
    (SELECT count(*) FROM d2.revisoes_geo_pendentes) AS revisoes_pendentes,
    (
        SELECT extract(epoch FROM o.updated_at)::double precision
        FROM d2.consumer_offset o WHERE o.tipo_evento = %(tipo)s
    ) AS ultimo_evento;

-- name: metrics_revisoes_closed
-- Reviews closed without a polygon, by step (the worker's gauge, once a minute).
SELECT passo, count(*) AS quantidade FROM d2.revisoes_tratadas GROUP BY passo;
