-- The verdict on a drawing between its evaluation and its submission
-- (d2.territorio_avaliar, then d2.territorio_submeter, which deletes the row): every
-- geometry operation happens in the evaluation, a statement that takes its transaction id
-- only at its end, so no event-log fence is held while GEOS works. tentativas counts
-- evaluations begun (d2.territorio_tentar, committed before each): a drawing that never
-- finishes being evaluated is dead-lettered after a few, not retried forever; its row
-- stays as the record.
CREATE TABLE d2.territorio_avaliacoes (
    event_id        UUID PRIMARY KEY,
    tentativas      INTEGER NOT NULL DEFAULT 0,
    decisao         TEXT,
    motivo          TEXT,
    geom            geometry(MultiPolygon, 4326),
    area_m2         DOUBLE PRECISION,
    reparada        BOOLEAN,
    municipio_uc_id UUID,
    parent_uc_id    UUID,
    alvo_uc_id      UUID,
    sobreposicao    DOUBLE PRECISION,
    -- Intersection area with each version of the UC it matches, by submission id: added
    -- to their consensus scores at submission.
    interseccoes    JSONB,
    nome            TEXT,
    nivel           INTEGER,
    autor_id        UUID,
    lugar_id        UUID,
    -- d2.territorio_estado.geracao when the evaluation began.
    geracao         BIGINT,
    -- NULL until an evaluation finished.
    avaliada_em     TIMESTAMPTZ,
    -- The stored answers inside the drawing (its share of the município's budget).
    resolucoes_tomadas BIGINT,
    -- What it takes (d2.territorio_julgar): its shape and area in m².
    geom_tomada     geometry(MultiPolygon, 4326),
    area_tomada_m2  DOUBLE PRECISION,
    -- Its own consensus score (the sum of interseccoes), as the choice foreseen by the
    -- evaluation counted it.
    pontuacao       DOUBLE PRECISION
);
