-- The pending reviews whose point lies in a changed area (d2.regeo_areas): one a
-- polygon now covers becomes a resolution, published, and leaves both queues. Worked
-- like d2.regeo_fila.
CREATE TABLE d2.regeo_fila_revisoes (
    -- d2.revisoes_geo_pendentes.demanda_id.
    demanda_id UUID PRIMARY KEY
);
