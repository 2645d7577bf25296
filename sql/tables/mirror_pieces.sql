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
-- The resolver's three tiers, probed in level order with LIMIT 1 (migration
-- 20261202130500): bairros and below, municípios, above.
CREATE INDEX mirror_pieces_geom_sub_idx ON d2.mirror_pieces USING gist (geom)
    WHERE nivel <= 3;
CREATE INDEX mirror_pieces_geom_mun_idx ON d2.mirror_pieces USING gist (geom)
    WHERE nivel = 4;
CREATE INDEX mirror_pieces_geom_sup_idx ON d2.mirror_pieces USING gist (geom)
    WHERE nivel >= 5;
