-- The one rounding rule of D-2 (docs/design.md, decision 2): 5 decimals, half away from zero,
-- over the float's 15-significant-digit decimal form (what float8 -> numeric gives).
-- The Python cache key reproduces exactly this (d2/territorio/resolver.py: arredondar, for d2/handler/geo_cache.py).
--
-- The numeric path (a float printed to 15 digits, parsed, rounded, printed and parsed
-- back) cost ~1.1 µs a point, a sixth of a random point's resolution. It is taken only
-- where the float path could differ from it: for |valor| < 1000 the 15-digit form moves
-- valor * 1e5 by at most 5e-8 and the float product errs by at most 1e-8, so unless
-- valor * 1e5 lies within 1e-6 of a half-integer both round it to the same integer n,
-- and n / 1e5 (n exact, one correctly rounded division) is the double nearest the
-- decimal the numeric path parses. + 0: the numeric path has no negative zero. NaN and
-- infinities fail the first test. Not STRICT, so PostgreSQL inlines it (a CASE is not
-- provably strict): the NULL in, NULL out is the CASE's own.
CREATE OR REPLACE FUNCTION d2.arredondar_coordenada(valor double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN abs(valor) < 1000::double precision
             AND abs(valor * 100000::double precision - floor(valor * 100000::double precision)
                     - 0.5::double precision) > 1e-6::double precision
        THEN (round(valor * 100000::double precision) + 0::double precision)
             / 100000::double precision
        ELSE round(valor::numeric, 5)::double precision
    END
$$;
