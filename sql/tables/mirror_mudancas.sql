-- The change capture (migration 20261203110000): the ids of the rows each statement on
-- core.uc_polygons inserted, updated or deleted, written by its statement triggers
-- (sql/triggers/uc_polygons_capturar.sql), and by d2.replica_aplicar for the replica.
-- That is all a writer of core.uc_polygons pays; d2.mirror_aplicar consumes the rows
-- later, in D-2's own transaction. No key and no index on purpose: a writer's insert
-- here is one heap tuple per row.
CREATE TABLE d2.mirror_mudancas (
    -- Both NULL: a TRUNCATE, everything changed.
    uc_polygon_id     UUID,
    unidade_civica_id UUID,
    registrado_em     TIMESTAMPTZ NOT NULL DEFAULT now()
);
