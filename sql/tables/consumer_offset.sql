-- Each consumer's cursor in core.event_log (spec §2.5, the N-0a Event Bus pattern):
-- the sequence number of the last event handled, moved in the same transaction as the
-- consumer's outputs, so a restart or a replay continues exactly there. One row per
-- stream: demanda.normalizada (the demand worker), lugar.cadastrado (citizen-drawn
-- polygons), uc.poligono_* (the event-synced replica). The transaction half of the
-- position is in d2.consumer_offset_transacao (the spec's columns stay as they are).
-- A trigger fences a worker that lost its leadership
-- (sql/triggers/consumer_offset_lideranca.sql).
CREATE TABLE d2.consumer_offset (
    tipo_evento    VARCHAR(255)   PRIMARY KEY,
    last_sequence  BIGINT         NOT NULL DEFAULT 0,
    updated_at     TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
