-- The mirror's one row of state. versao moves at every change of the mirror: it is the
-- epoch of the worker's cache key, so a change empties every worker's cache. The
-- migration inserts the row (INSERT ... DEFAULT VALUES); the CHECK on id keeps it one.
CREATE TABLE d2.mirror_state (
    id            BOOLEAN PRIMARY KEY DEFAULT true,
    versao        BIGINT NOT NULL DEFAULT 0,
    -- The vertex cap of d2.mirror_pieces, measured by d2 bench pip (migration
    -- 20261202130500): 16 and 32 are 10-40 % slower, 64 and 128 within the noise.
    max_vertices  INTEGER NOT NULL DEFAULT 64,
    alterado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- Where the mirror reads its polygons (the view d2.uc_fonte): 'core', the MVP's
    -- core.uc_polygons, or 'eventos', the replica d2.replica_uc; d2 mirror source
    -- switches, and every worker follows the database's setting.
    fonte         VARCHAR(10) NOT NULL DEFAULT 'core',
    -- An invalid polygon with more vertices is not repaired but rejected
    -- (d2.mirror_rejected): GEOS cannot be interrupted, and repairing a self-crossing
    -- ring costs more than n² (a 201-vertex star: 0.5 s; 401: 3.6 s).
    max_vertices_reparo INTEGER NOT NULL DEFAULT 200,
    -- Polygons synced since the resolver's index d2.mirror_pieces_geom_mun_sub_idx was
    -- last built: past a tenth of the mirror, d2.mirror_aplicar builds it again (inserts
    -- fill the pages its build left nine tenths empty; sql/tables/mirror_pieces.sql).
    sincronizados_desde_indice BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT mirror_state_id_check CHECK (id),
    CONSTRAINT mirror_state_max_vertices_check CHECK (max_vertices >= 5),
    CONSTRAINT mirror_state_fonte_check CHECK (fonte IN ('core', 'eventos')),
    CONSTRAINT mirror_state_max_vertices_reparo_check CHECK (max_vertices_reparo >= 0)
);
