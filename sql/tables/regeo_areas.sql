-- Re-georeferencing follows the mirror (spec 8.3, migration 20261203150010): every
-- change of d2.mirror_uc leaves its old and new geometry here, written by statement
-- triggers in the transaction that changes the mirror
-- (sql/triggers/mirror_uc_regeo_areas.sql), so the follow-up sees a change exactly when
-- the resolver does. The worker turns them into d2.regeo_fila / d2.regeo_fila_revisoes
-- and deletes them in the same transaction.
CREATE TABLE d2.regeo_areas (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL: a TRUNCATE of the mirror (a rebuild), everything may have changed.
    geom              geometry(MultiPolygon, 4326),
    unidade_civica_id UUID,
    criado_em         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
