-- Marks every event that reached a terminal path of the demand handler (spec §2.3):
-- georeferenced, no coordinates, invalid coordinates, point outside every polygon. The
-- primary key on event_id makes the mark idempotent by construction. Kept apart from
-- d2.resolucoes_geo (spec §2.9): the discards produce no resolution but are processed
-- all the same. (Its criado_em, redundant with processado_em, was dropped by migration
-- 20260918140000.)
CREATE TABLE d2.eventos_processados (
    event_id       UUID           NOT NULL,
    demanda_id     UUID           NOT NULL,
    processado_em  TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT eventos_processados_pkey PRIMARY KEY (event_id)
);

CREATE INDEX eventos_processados_demanda_id_idx ON d2.eventos_processados (demanda_id);
