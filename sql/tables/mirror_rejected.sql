-- Rows of d2.uc_fonte left out of the mirror, and why (a geometry that cannot be read,
-- is not polygonal, or is empty after repair): a bad polygon is listed here with a
-- WARNING, never an error that would block the writer of core.uc_polygons.
CREATE TABLE d2.mirror_rejected (
    uc_polygon_id     UUID PRIMARY KEY,
    unidade_civica_id UUID,
    nivel             INTEGER,
    nome              TEXT,
    -- The error text (SQLERRM).
    motivo            TEXT NOT NULL,
    rejeitado_em      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
