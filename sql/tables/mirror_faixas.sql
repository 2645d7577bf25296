-- Clean intervals (migration 20261202140000; runs of them per row since 20261207100000,
-- the gaps' pieces since 20261207100100): for each band of 1/d2.faixas_por_grau() degree
-- of latitude (~870 m), the open x-intervals no border of a level <= 4 polygon crosses,
-- with their answer. Most points resolve with one B-tree probe and touch no geometry;
-- points in no interval take the gaps' pieces, then the GIST tiers of d2.mirror_pieces.
-- A missing interval only costs speed (sql/functions/mirror_faixas_construir.sql says why
-- the answer stored is exact).
--
-- A row holds up to 64 consecutive intervals of its band as arrays, and the resolver
-- finds the point's interval in them with width_bucket (a binary search in C). One row
-- an interval made the table and its index ~35 MB for Brazil, and the probe's walk
-- through them (pages out of the CPU's caches) most of a random point's cost; as runs
-- they hold ~14 MB behind an index of ~8,000 keys (docs/notes/resolver.md).
--
-- The row also answers a point between two intervals (near a border): for the gap after
-- each interval it lists the level <= 4 pieces whose bounding box meets the gap, in the
-- answer's order, and the resolver tests the point against them by key, the first that
-- holds it being the answer (migration 20261207100100). Without them a point near a
-- border paid a GIST search (~4 µs, ~60% of such a point's cost); the lists add ~11 MB.
-- STORAGE PLAIN and toast_tuple_target: a row (~2-4 kB) is past the size at which
-- PostgreSQL would compress or move it out of line, and undoing that at every probe
-- would cost more than the probe; only a row past 8 kB (a gap with very many pieces)
-- moves its list of pieces out of line.
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
    -- The gap after interval g (up to the band's next interval; none after its last)
    -- holds the pieces pedacos[corte[g] .. corte[g + 1] - 1] (d2.mirror_pieces.id).
    corte             INTEGER[] NOT NULL,
    pedacos           BIGINT[] NOT NULL,
    CONSTRAINT mirror_faixas_pkey PRIMARY KEY (faixa, x_inicio),
    CONSTRAINT mirror_faixas_check CHECK (
        limites[1] = x_inicio
        AND cardinality(limites) = 2 * cardinality(unidades)
        AND cardinality(unidades) = cardinality(niveis)
        AND cardinality(corte) = cardinality(unidades) + 1
    )
) WITH (toast_tuple_target = 8160);

ALTER TABLE d2.mirror_faixas
    ALTER COLUMN limites SET STORAGE PLAIN,
    ALTER COLUMN unidades SET STORAGE PLAIN,
    ALTER COLUMN niveis SET STORAGE PLAIN,
    ALTER COLUMN corte SET STORAGE PLAIN,
    ALTER COLUMN pedacos SET STORAGE EXTERNAL;
