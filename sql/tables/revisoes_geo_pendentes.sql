-- The manual review queue (spec §2.4): demands whose point lies in no polygon. One row
-- per demanda_id; it leaves the queue once new polygons cover the point (d2 revisoes
-- reprocessar, or the re-georeferencing follow-up when the mirror changes).
CREATE TABLE d2.revisoes_geo_pendentes (
    demanda_id      UUID             NOT NULL,
    event_id        UUID             NOT NULL,
    coordenadas_lat DOUBLE PRECISION NOT NULL,
    coordenadas_lng DOUBLE PRECISION NOT NULL,
    criado_em       TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT revisoes_geo_pendentes_pkey PRIMARY KEY (demanda_id)
);

-- One review per event. A unique index, not a constraint, as the spec declares it.
CREATE UNIQUE INDEX revisoes_geo_pendentes_event_id_key
    ON d2.revisoes_geo_pendentes (event_id);
-- Re-georeferencing reads only the points inside a changed area (d2.regeo_areas): the
-- same expression the queries use.
CREATE INDEX revisoes_geo_pendentes_ponto_idx ON d2.revisoes_geo_pendentes
    USING gist (ST_SetSRID(ST_MakePoint(coordenadas_lng, coordenadas_lat), 4326));
