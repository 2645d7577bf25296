-- The community UCs and their canonical drawing, current within the transaction that
-- changes them (the mirror follows core.uc_polygons on its own time), so consensus
-- compares a new drawing with the UCs as they are now (d2.territorio_candidatas).
CREATE TABLE d2.territorio_ucs (
    unidade_civica_id  UUID PRIMARY KEY,
    -- Its row in core.uc_polygons (fonte 'comunitario').
    uc_polygon_id      UUID NOT NULL,
    nivel              INTEGER NOT NULL,
    nome               VARCHAR(255) NOT NULL,
    municipio_uc_id    UUID NOT NULL,
    -- The version whose geometry the UC has now.
    submissao_canonica UUID NOT NULL,
    geom               geometry(MultiPolygon, 4326) NOT NULL,
    -- false once a moderator rejected the drawing that created it (its
    -- core.uc_polygons row is then deleted).
    ativa              BOOLEAN NOT NULL DEFAULT true,
    criada_em          TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    atualizada_em      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- Where the UC was drawn: its creating drawing, or the version a moderator accepted
    -- last. New drawings are matched against it, so confirmations cannot walk the
    -- canonical geometry away.
    geom_ancora        geometry(MultiPolygon, 4326) NOT NULL,
    CONSTRAINT territorio_ucs_submissao_canonica_fkey
        FOREIGN KEY (submissao_canonica) REFERENCES d2.territorio_submissoes (id)
);

-- The community UCs a new drawing touches (consensus).
CREATE INDEX territorio_ucs_geom_idx ON d2.territorio_ucs USING gist (geom);
