-- Clean intervals (migration 20261202140000): for each band of 1/d2.faixas_por_grau()
-- degree of latitude (~870 m), the open x-intervals no border of a level <= 4 polygon
-- crosses, with their answer. Most points resolve with one B-tree probe and touch no
-- geometry; points in no interval take the GIST tiers of d2.mirror_pieces. A missing
-- interval only costs speed (sql/functions/mirror_faixas_construir.sql says why the
-- answer stored is exact).
CREATE TABLE d2.mirror_faixas (
    -- floor(lat * d2.faixas_por_grau()).
    faixa             INTEGER NOT NULL,
    x_inicio          DOUBLE PRECISION NOT NULL,
    x_fim             DOUBLE PRECISION NOT NULL,
    -- The answer at every point of the interval: d2.resolver_territorio's.
    unidade_civica_id UUID NOT NULL,
    nivel             INTEGER NOT NULL,
    CONSTRAINT mirror_faixas_pkey PRIMARY KEY (faixa, x_inicio),
    CONSTRAINT mirror_faixas_check CHECK (x_inicio < x_fim)
);
