-- Demands whose demanda_id came under two events with different content (coordinates or
-- address): a conflict an operator settles (migration 20261204120100).
-- Any producer can publish under any demanda_id, and the readers' order is the
-- producers' transaction order, which a producer can choose: the first event is never
-- taken as the real one on that ground alone. One row per event in the conflict, which
-- is its terminal state (not a dead letter): the event that came later, and, once the
-- operator decides for another, the event that held the demanda. While a row of the
-- demanda is undecided nothing more is published for it (a replay, the
-- re-georeferencing follow-up, the review queue). A later event with the same content
-- as the holder's (a producer's retry) is a dead letter, as before.
CREATE TABLE d2.conflitos_demanda (
    event_id           UUID           NOT NULL,
    demanda_id         UUID           NOT NULL,
    sequence_number    BIGINT,
    criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The resolution this event held, as stored and published, when the operator chose
    -- another event (`d2 conflicts aceitar`): the row is removed from d2.resolucoes_geo.
    resolucao_anterior JSONB,
    decidido_em        TIMESTAMPTZ,
    decidido_por       TEXT,
    -- aceito: the event the demanda keeps; recusado: the others.
    decisao            TEXT,
    CONSTRAINT conflitos_demanda_pkey PRIMARY KEY (event_id),
    CONSTRAINT conflitos_demanda_decisao_check CHECK (decisao IN ('aceito', 'recusado'))
);

CREATE INDEX conflitos_demanda_demanda_id_idx ON d2.conflitos_demanda (demanda_id);
-- What is still undecided: d2 conflicts list, d2 status, and the checks that hold back
-- publications.
CREATE INDEX conflitos_demanda_abertos_idx ON d2.conflitos_demanda (demanda_id)
    WHERE decidido_em IS NULL;
