-- The PostGIS mirror of the territory (docs/design.md, decisions 1-4): one row per polygon of
-- d2.uc_fonte (core.uc_polygons, or the event-synced replica d2.replica_uc), its GeoJSON
-- read as a valid MultiPolygon in 4326, repaired with ST_MakeValid where needed (and
-- small enough: d2.mirror_state.max_vertices_reparo). Written
-- only by the mirror functions (d2.mirror_sync, d2.mirror_aplicar, d2.mirror_rebuild),
-- outside the writers' transactions. Triggers on it invalidate the clean intervals and
-- record the areas to re-georeference (sql/triggers/mirror_uc_faixas.sql,
-- sql/triggers/mirror_uc_regeo_areas.sql).
CREATE TABLE d2.mirror_uc (
    -- The id of the source row (core.uc_polygons.id or d2.replica_uc.id).
    uc_polygon_id     UUID PRIMARY KEY,
    unidade_civica_id UUID NOT NULL,
    nivel             INTEGER NOT NULL,
    geom              geometry(MultiPolygon, 4326) NOT NULL,
    -- The source geometry was invalid and ST_MakeValid repaired it (with a WARNING).
    reparada          BOOLEAN NOT NULL DEFAULT false,
    -- ST_NPoints of geom.
    n_vertices        INTEGER NOT NULL,
    sincronizado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- 1 for a community polygon (fonte 'comunitario'), 0 for an official one: at the same
    -- level the resolver takes the official one (d2.mirror_sync sets it).
    prioridade        SMALLINT NOT NULL DEFAULT 0
);

CREATE INDEX mirror_uc_geom_idx ON d2.mirror_uc USING gist (geom);
CREATE INDEX mirror_uc_unidade_civica_id_idx ON d2.mirror_uc (unidade_civica_id);
