-- Each uc.poligono_* event the replica consumed and its terminal state: idempotency by
-- event_id (a replayed event is 'repetido' and writes nothing).
CREATE TABLE d2.replica_eventos (
    event_id      UUID PRIMARY KEY,
    tipo          VARCHAR(255) NOT NULL,
    uc_polygon_id UUID,
    -- aplicado, removido or ausente (a removido of a polygon the replica never had).
    desfecho      TEXT,
    aplicado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
