-- The producers' side of the replica (migration 20261203161000): what
-- d2.poligonos_publicar_estado last published of each row of core.uc_polygons as a
-- uc.poligono_* event, so each row version is published once (the importers, in the
-- transaction of their writes, and d2 mirror publicar-estado for an older log).
CREATE TABLE d2.poligonos_publicados (
    uc_polygon_id     UUID PRIMARY KEY,
    unidade_civica_id UUID NOT NULL,
    nivel             INTEGER NOT NULL,
    -- md5 of the row's published state (level, name, geometry, parent, source, UC).
    hash              TEXT NOT NULL
);
