-- Clean intervals (migration 20261202140000; one row per run of intervals since
-- 20261207100000): for each band of 1/d2.faixas_por_grau() degree of latitude (~870 m),
-- the open x-intervals no border of a level <= 4 polygon crosses, with their answer. Most
-- points resolve with one B-tree probe and touch no geometry; points in no interval take
-- the GIST tiers of d2.mirror_pieces. A missing interval only costs speed
-- (sql/functions/mirror_faixas_construir.sql says why the answer stored is exact).
--
-- A row holds up to 64 consecutive intervals of its band as arrays, and the resolver
-- finds the point's interval in them with width_bucket (a binary search in C). One row
-- an interval made the table and its index ~35 MB for Brazil, and the probe's walk
-- through them (pages out of the CPU's caches) most of a random point's cost; as runs
-- they hold ~14 MB behind an index of ~8,000 keys (docs/performance.md). STORAGE PLAIN:
-- a row of 64 intervals (~2.4 kB) is past the threshold at which PostgreSQL would
-- compress it, and decompressing at every probe would cost more than the probe.
CREATE TABLE d2.mirror_faixas (
    -- floor(lat * d2.faixas_por_grau()).
    faixa             INTEGER NOT NULL,
    -- The start of the row's first interval (limites[1]).
    x_inicio          DOUBLE PRECISION NOT NULL,
    -- The intervals in x order, two numbers each: start and end, strictly increasing.
    limites           DOUBLE PRECISION[] NOT NULL,
    -- The answer at every point of each interval: d2.resolver_territorio's.
    unidades          UUID[] NOT NULL,
    niveis            INTEGER[] NOT NULL,
    CONSTRAINT mirror_faixas_pkey PRIMARY KEY (faixa, x_inicio),
    CONSTRAINT mirror_faixas_check CHECK (
        limites[1] = x_inicio
        AND cardinality(limites) = 2 * cardinality(unidades)
        AND cardinality(unidades) = cardinality(niveis)
    )
);

ALTER TABLE d2.mirror_faixas
    ALTER COLUMN limites SET STORAGE PLAIN,
    ALTER COLUMN unidades SET STORAGE PLAIN,
    ALTER COLUMN niveis SET STORAGE PLAIN;
