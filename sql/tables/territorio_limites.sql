-- Per level a citizen may draw (1 micro-área, 2 bairro), what a drawing must respect and
-- when a moderator decides before it becomes a UC (spec 8.5, layer 2;
-- d2.territorio_validar, d2.territorio_avaliar). Operators tune them with UPDATE. The
-- migrations insert the two rows: a micro-área from 1,000 m² (a few blocks) to 5 km² (a
-- large favela), 1,000 vertices, held above 1 km²; a bairro from 1,000 m² to 200 km²
-- (the largest IBGE bairros of the Amazon), 2,000 vertices, held above 20 km²; both
-- repaired only up to 100 vertices, held when covering more than 10% of UCs of their
-- level or taking more than 50 stored answers, 20 drawings per author a day.
CREATE TABLE d2.territorio_limites (
    nivel        INTEGER PRIMARY KEY,
    -- m² on the spheroid.
    area_min_m2  DOUBLE PRECISION NOT NULL,
    area_max_m2  DOUBLE PRECISION NOT NULL,
    -- A drawing is a few dozen vertices; 10⁶ is an attack.
    max_vertices INTEGER NOT NULL,
    -- Repairing a self-crossing ring costs more than n² and GEOS cannot be interrupted:
    -- an invalid drawing with more vertices is refused, not repaired.
    max_vertices_reparo INTEGER NOT NULL DEFAULT 100,
    -- A new UC larger than this waits for a moderator ('retida').
    area_moderacao_m2 DOUBLE PRECISION NOT NULL DEFAULT 1e6,
    -- A new UC covering more than this share of official (or of community) UCs of its
    -- level waits for a moderator.
    sobreposicao_max DOUBLE PRECISION NOT NULL DEFAULT 0.1,
    -- A new UC that would take more stored answers than this (each re-georeferenced and
    -- republished at once) waits for a moderator.
    max_resolucoes_tomadas INTEGER NOT NULL DEFAULT 50,
    -- Drawings one author may send in 24 hours; past it they are refused.
    max_por_autor_dia INTEGER NOT NULL DEFAULT 20,
    CONSTRAINT territorio_limites_nivel_check CHECK (nivel IN (1, 2)),
    CONSTRAINT territorio_limites_area_min_m2_check CHECK (area_min_m2 > 0),
    CONSTRAINT territorio_limites_max_vertices_check CHECK (max_vertices >= 4),
    CONSTRAINT territorio_limites_check CHECK (area_max_m2 > area_min_m2),
    CONSTRAINT territorio_limites_max_vertices_reparo_check
        CHECK (max_vertices_reparo BETWEEN 0 AND max_vertices),
    CONSTRAINT territorio_limites_sobreposicao_max_check CHECK (sobreposicao_max BETWEEN 0 AND 1)
);
