-- Per level a citizen may draw (1 micro-área, 2 bairro), the area bounds and vertex cap
-- a drawing must respect (spec 8.5, layer 2; d2.territorio_avaliar). Operators tune them
-- with UPDATE. The migration inserts the two rows: a micro-área from 1,000 m² (a few
-- blocks) to 5 km² (a large favela), 5,000 vertices; a bairro from 1,000 m² to 200 km²
-- (the largest IBGE bairros of the Amazon), 20,000 vertices.
CREATE TABLE d2.territorio_limites (
    nivel        INTEGER PRIMARY KEY,
    -- m² on the spheroid.
    area_min_m2  DOUBLE PRECISION NOT NULL,
    area_max_m2  DOUBLE PRECISION NOT NULL,
    -- A drawing is a few dozen vertices; 10⁶ is an attack.
    max_vertices INTEGER NOT NULL,
    CONSTRAINT territorio_limites_nivel_check CHECK (nivel IN (1, 2)),
    CONSTRAINT territorio_limites_area_min_m2_check CHECK (area_min_m2 > 0),
    CONSTRAINT territorio_limites_max_vertices_check CHECK (max_vertices >= 4),
    CONSTRAINT territorio_limites_check CHECK (area_max_m2 > area_min_m2)
);
