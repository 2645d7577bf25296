-- Dead letters (spec 3.4): an event a consumer could not handle (malformed, refused by
-- the Registry, too large, a publish that kept failing), with the reason, so that the
-- consumer's cursor moves on and an operator can retry or discard it (d2 dlq). Shared
-- by every colony's consumers; D-2's are those of consumer 'D-2' or 'D-2/...', the only
-- ones its worker sees (the view d2.dead_letters). It belongs to the monolith's core:
-- migration 20261202130100 creates it only where the monolith has not, which is what
-- this file describes (standalone installs, tests).
CREATE TABLE core.dead_letter_queue (
    id                BIGINT        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumidor        VARCHAR(100)  NOT NULL,
    event_id          UUID          NOT NULL,
    tipo              VARCHAR(255)  NOT NULL,
    sequence_number   BIGINT,
    erro              TEXT          NOT NULL,
    -- A later failure of the same event counts here instead of adding a row.
    tentativas        INTEGER       NOT NULL DEFAULT 1,
    -- pendente until an operator or a later pass acts: reprocessado (handled after
    -- all, e.g. a publish that succeeded on the next pass) or descartado.
    status            VARCHAR(20)   NOT NULL DEFAULT 'pendente',
    primeiro_erro_em  TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
    ultimo_erro_em    TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
    reprocessado_em   TIMESTAMPTZ,
    -- One dead letter per (consumer, event): a retry updates it.
    CONSTRAINT dead_letter_queue_consumidor_event_id_key UNIQUE (consumidor, event_id),
    CONSTRAINT dead_letter_queue_status_check
        CHECK (status IN ('pendente', 'reprocessado', 'descartado'))
);

-- Pending dead letters by consumer (d2 dlq list, d2 status).
CREATE INDEX dead_letter_queue_status_idx ON core.dead_letter_queue (status, consumidor);

-- The marker the downgrade reads: it drops the table only if D-2 created it.
COMMENT ON TABLE core.dead_letter_queue IS 'criada pela migration d2 20261202130100';
