-- The uc.poligono_* events D-2's importers published (migration 20261204120000), written
-- by d2.poligonos_publicar_estado in the transaction that publishes them: the replica
-- knows its importers' events by this record, never by the origem a producer declares.
-- Only the owner writes it (d2_worker and other colonies have no privilege on it), and
-- an event counts as the importers' only while its payload still hashes the same.
-- Events published before the migration were recorded from their origem 'D-2'.
CREATE TABLE d2.poligonos_eventos (
    event_id      UUID PRIMARY KEY,
    uc_polygon_id UUID NOT NULL,
    -- md5 of the published payload's jsonb text.
    hash          TEXT NOT NULL,
    publicado_em  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
