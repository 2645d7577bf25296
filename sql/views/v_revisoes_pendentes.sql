-- The manual review queue, oldest first, with how long each has waited, and its event's
-- place in the log (migration 20261208200000: the last column; it breaks ties between
-- the reviews of one batch, for a reader who may not read the log itself: the view reads
-- core.event_log as its owner, and calls no function a reader would need EXECUTE on).
CREATE OR REPLACE VIEW d2.v_revisoes_pendentes AS
SELECT p.demanda_id,
       p.event_id,
       p.coordenadas_lat,
       p.coordenadas_lng,
       p.criado_em,
       date_trunc('second', CURRENT_TIMESTAMP - p.criado_em) AS aguardando,
       e.sequence_number
FROM d2.revisoes_geo_pendentes p
LEFT JOIN core.event_log e ON e.event_id = p.event_id
ORDER BY p.criado_em, e.sequence_number, p.demanda_id;
