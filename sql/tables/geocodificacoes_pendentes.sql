-- Address demands waiting for the geocoder (migration 20261203130000): a
-- demand with no usable GPS but an address is parked here in the transaction that moves
-- the cursor, so the geocoder's latency or absence never reaches GPS demands. One row
-- per event; the text stays in core.event_log, not copied here. The worker's geocoding
-- stage takes the due rows, and a row leaves in the transaction that gives its event a
-- terminal state; while the geocoder is down it waits with a doubling backoff.
CREATE TABLE d2.geocodificacoes_pendentes (
    event_id          UUID           NOT NULL,
    demanda_id        UUID           NOT NULL,
    -- The event's place in the log: among rows due at the same time, oldest first.
    sequence_number   BIGINT         NOT NULL,
    tentativas        INTEGER        NOT NULL DEFAULT 0,
    proxima_tentativa TIMESTAMPTZ    NOT NULL DEFAULT clock_timestamp(),
    -- The last failure, cut to 200 characters.
    ultimo_erro       VARCHAR(200),
    criado_em         TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- Tries the geocoder failed for this address while it was answering (its status
    -- said so, or it answered others): after D2_GEOCODER_TRIES_MAX the event goes to
    -- the dead letters (migration 20261204140100). A geocoder that is down counts none.
    falhas            INTEGER        NOT NULL DEFAULT 0,
    CONSTRAINT geocodificacoes_pendentes_pkey PRIMARY KEY (event_id)
);

-- The due rows (proxima_tentativa <= now), the longest due first.
CREATE INDEX geocodificacoes_pendentes_proxima_idx
    ON d2.geocodificacoes_pendentes (proxima_tentativa, sequence_number);
