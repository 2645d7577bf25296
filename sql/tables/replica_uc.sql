-- The event-synced replica of the territory (spec Phase 2, migration 20261203161000):
-- the polygons as the uc.poligono_adicionado / _atualizado / _removido events describe
-- them, the mirror's source when d2.mirror_state.fonte = 'eventos'. Written only by
-- d2.replica_aplicar (SECURITY DEFINER: d2_worker has no write grant on it); the same
-- columns as core.uc_polygons that the mirror reads (d2.uc_fonte).
CREATE TABLE d2.replica_uc (
    -- The events' uc_polygon_id.
    id                UUID PRIMARY KEY,
    unidade_civica_id UUID NOT NULL,
    nivel             INTEGER NOT NULL,
    nome              VARCHAR(255),
    geometria         JSONB NOT NULL,
    parent_uc_id      UUID,
    fonte             VARCHAR(50),
    -- The last event applied to the row: events carry the whole state, last one wins.
    event_id          UUID NOT NULL,
    atualizado_em     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- Written by an event of D-2's importers (d2.poligonos_eventos) of a fonte other than
    -- 'comunitario' (migration 20261205110000): no proposal may remove or replace it, nor
    -- add a polygon to its UC. A proposal's row has fonte 'comunitario' whatever it
    -- claimed.
    oficial           BOOLEAN NOT NULL DEFAULT false
);

CREATE INDEX replica_uc_unidade_civica_id_idx ON d2.replica_uc (unidade_civica_id);
