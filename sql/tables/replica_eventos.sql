-- Each uc.poligono_* event the replica consumed and its terminal state: idempotency by
-- event_id (a replayed event is 'repetido' and writes nothing).
CREATE TABLE d2.replica_eventos (
    event_id      UUID PRIMARY KEY,
    tipo          VARCHAR(255) NOT NULL,
    uc_polygon_id UUID,
    -- aplicado, removido, ausente (a removido of a polygon the replica never had),
    -- descartado (a removal held by the breaker that the operator dropped), or superado
    -- (a proposal held by the breaker that a later event had overwritten when it came).
    desfecho      TEXT,
    aplicado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- The event removed a polygon, or took the place of a coarser UC's interior point,
    -- and was not the importers': it counts toward the breaker (migration 20261204120000).
    disjuntor     BOOLEAN NOT NULL DEFAULT false,
    -- The stored answers the proposal took (migration 20261205110000): summed over the
    -- window, they stop the breaker too (d2.replica_limites.respostas_janela_max).
    tomadas       INTEGER NOT NULL DEFAULT 0,
    -- D-2's importers' own event (recorded in d2.poligonos_eventos with its payload's
    -- md5; migration 20261208120000): a removal of what they wrote counts toward the
    -- breaker, one of what proposals wrote taking nothing does not.
    proprio       BOOLEAN NOT NULL DEFAULT false
);

-- The breaker's count: its events of the last d2.replica_limites.disjuntor_janela_s seconds.
CREATE INDEX replica_eventos_disjuntor_idx ON d2.replica_eventos (aplicado_em)
    WHERE disjuntor;
-- The events that wrote one polygon: what its removal gives back, and whether a held
-- proposal was overwritten meanwhile (d2.replica_aplicar).
CREATE INDEX replica_eventos_uc_polygon_id_idx ON d2.replica_eventos (uc_polygon_id);
