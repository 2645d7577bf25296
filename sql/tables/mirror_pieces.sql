-- The mirror's geometry cut by ST_Subdivide into pieces of at most
-- d2.mirror_state.max_vertices vertices: what the resolver searches, so that a point
-- test never walks a whole município's border.
CREATE TABLE d2.mirror_pieces (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uc_polygon_id     UUID NOT NULL,
    unidade_civica_id UUID NOT NULL,
    nivel             INTEGER NOT NULL,
    geom              geometry(Polygon, 4326) NOT NULL,
    -- Its polygon's d2.mirror_uc.prioridade: the resolver orders by nivel, prioridade, UC.
    prioridade        SMALLINT NOT NULL DEFAULT 0
);

CREATE INDEX mirror_pieces_geom_idx ON d2.mirror_pieces USING gist (geom);
CREATE INDEX mirror_pieces_uc_polygon_id_idx ON d2.mirror_pieces (uc_polygon_id);
-- The resolver's two tiers, probed in level order with LIMIT 1: municípios and below,
-- then above (migration 20261206100000; before it, bairros and municípios were two tiers).
-- The first is built with pages a tenth full: a GIST search tests every entry of each
-- page it visits, once per point near a border, so ~17 entries a page instead of ~190
-- made that search ~2.4x cheaper (docs/notes/resolver.md). buffering = on: the sorted build
-- PostgreSQL picks otherwise ignores the fillfactor. Inserts after the build fill pages
-- up, so d2.mirror_aplicar and d2.mirror_rebuild build it again after writing many
-- pieces (d2.mirror_state.sincronizados_desde_indice).
CREATE INDEX mirror_pieces_geom_mun_sub_idx ON d2.mirror_pieces USING gist (geom)
    WITH (fillfactor = 10, buffering = on)
    WHERE nivel <= 4;
CREATE INDEX mirror_pieces_geom_sup_idx ON d2.mirror_pieces USING gist (geom)
    WHERE nivel >= 5;
