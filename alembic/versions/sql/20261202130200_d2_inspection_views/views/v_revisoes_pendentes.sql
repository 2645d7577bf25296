-- The manual review queue, oldest first, with how long each has waited.
CREATE OR REPLACE VIEW d2.v_revisoes_pendentes AS
SELECT p.demanda_id,
       p.event_id,
       p.coordenadas_lat,
       p.coordenadas_lng,
       p.criado_em,
       date_trunc('second', CURRENT_TIMESTAMP - p.criado_em) AS aguardando
FROM d2.revisoes_geo_pendentes p
ORDER BY p.criado_em;
