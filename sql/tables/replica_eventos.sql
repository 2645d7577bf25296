-- Each uc.poligono_* event the replica consumed and its terminal state: idempotency by
-- event_id (a replayed event is 'repetido' and writes nothing).
CREATE TABLE d2.replica_eventos (
    event_id      UUID PRIMARY KEY,
    tipo          VARCHAR(255) NOT NULL,
    uc_polygon_id UUID,
    -- aplicado, removido, ausente (a removido of a polygon the replica never had), or
    -- descartado (a removal held by the breaker that the operator dropped).
    desfecho      TEXT,
    aplicado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- The event removed a polygon, or took the place of a coarser UC's interior point,
    -- and was not the importers': it counts toward the breaker (migration 20261204120000).
    disjuntor     BOOLEAN NOT NULL DEFAULT false,
    -- The stored answers the proposal took (migration 20261205110000): summed over the
    -- window, they stop the breaker too (d2.replica_limites.respostas_janela_max).
    tomadas       INTEGER NOT NULL DEFAULT 0
);

-- The breaker's count: its events of the last d2.replica_limites.disjuntor_janela_s seconds.
CREATE INDEX replica_eventos_disjuntor_idx ON d2.replica_eventos (aplicado_em)
    WHERE disjuntor;
