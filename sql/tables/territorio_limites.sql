-- Per level a citizen may draw (1 micro-área, 2 bairro), what a drawing must respect and
-- when a moderator decides before it becomes a UC (spec 8.5, layer 2;
-- d2.territorio_validar, d2.territorio_avaliar). Operators tune them with UPDATE. The
-- migrations insert the two rows: a micro-área from 1,000 m² (a few blocks) to 5 km² (a
-- large favela), 1,000 vertices, held above 1 km²; a bairro from 1,000 m² to 200 km²
-- (the largest IBGE bairros of the Amazon), 2,000 vertices, held above 20 km²; both
-- repaired only up to 100 vertices, held when covering more than 10% of UCs of their
-- level or taking more than 50 stored answers. The budgets are per município and level,
-- over a window of a day: 2 km² of new micro-áreas, 10 km² of new bairros, 100 stored
-- answers taken, 25% of any official UC covered, by changes made without a moderator;
-- past them every new drawing there waits. The ceiling has no window: what changes no
-- moderator reviewed took in a município in all, 2 km² of micro-áreas, 10 km² of bairros,
-- 100 stored answers at every level; past it every drawing there waits until a moderator
-- reviews. None of these keys on the author a drawing claims (autor_id is the producer's
-- field: a new id costs nothing).
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
    -- The budgets' window: new UCs made without a moderator within it count.
    janela_orcamento INTERVAL NOT NULL DEFAULT '1 day',
    -- m² of new UCs of this level one município may gain without a moderator in the
    -- window (the drawing judged included); past it, every new drawing there waits.
    orcamento_area_m2 DOUBLE PRECISION NOT NULL DEFAULT 2e6,
    -- Stored answers those new UCs may take in the window (each re-georeferenced and
    -- republished).
    orcamento_resolucoes INTEGER NOT NULL DEFAULT 100,
    -- The share of one official UC of this level or coarser (up to the município) that
    -- those new UCs may cover.
    cobertura_max DOUBLE PRECISION NOT NULL DEFAULT 0.25,
    -- m² of this level that changes no moderator reviewed may take in one município, in
    -- all (no window): a patient drawer cannot spend one window's budget after another.
    teto_area_m2 DOUBLE PRECISION NOT NULL DEFAULT 2e6,
    -- Stored answers those changes may take in one município, at every level together.
    teto_resolucoes INTEGER NOT NULL DEFAULT 100,
    CONSTRAINT territorio_limites_nivel_check CHECK (nivel IN (1, 2)),
    CONSTRAINT territorio_limites_area_min_m2_check CHECK (area_min_m2 > 0),
    CONSTRAINT territorio_limites_max_vertices_check CHECK (max_vertices >= 4),
    CONSTRAINT territorio_limites_check CHECK (area_max_m2 > area_min_m2),
    CONSTRAINT territorio_limites_max_vertices_reparo_check
        CHECK (max_vertices_reparo BETWEEN 0 AND max_vertices),
    CONSTRAINT territorio_limites_sobreposicao_max_check CHECK (sobreposicao_max BETWEEN 0 AND 1),
    CONSTRAINT territorio_limites_cobertura_max_check CHECK (cobertura_max BETWEEN 0 AND 1),
    CONSTRAINT territorio_limites_orcamento_check
        CHECK (orcamento_area_m2 >= 0 AND orcamento_resolucoes >= 0
               AND janela_orcamento > interval '0'),
    CONSTRAINT territorio_limites_teto_check CHECK (teto_area_m2 >= 0 AND teto_resolucoes >= 0)
);
