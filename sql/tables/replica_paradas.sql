-- The replica's breaker (migration 20261204120000): each time the event-synced replica
-- stopped before an event, because more polygons were removed or taken, or more stored
-- answers taken, by producers other than D-2's importers than d2.replica_limites allows
-- within its window. Written only by the owner's functions (d2.replica_parar judges the
-- event again before it records a stop). While a row has no retomada_em the replica
-- applies no proposal (its cursor waits before event_id; only D-2's importers' events
-- apply meanwhile); `d2 mirror resume` ends it, applying or dropping what was held.
CREATE TABLE d2.replica_paradas (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The event the replica stopped before.
    event_id      UUID NOT NULL,
    motivo        TEXT NOT NULL,
    parada_em     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    retomada_em   TIMESTAMPTZ,
    -- Who resumed it (d2 mirror resume --by), and how many held removals were dropped.
    retomada_por  TEXT,
    descartados   INTEGER,
    -- While it lasts, the last event past the held one that d2.replica_aplicar was asked
    -- about (the importers' events apply meanwhile): the next pass reads after it.
    vista_transacao xid8,
    vista_sequencia BIGINT
);

-- At most one stop at a time.
CREATE UNIQUE INDEX replica_paradas_aberta_key ON d2.replica_paradas ((true))
    WHERE retomada_em IS NULL;
