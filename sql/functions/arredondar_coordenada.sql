-- The one rounding rule of D-2 (docs/design.md, decision 2): 5 decimals, half away from zero,
-- over the float's 15-significant-digit decimal form (what float8 -> numeric gives).
-- The Python cache key reproduces exactly this (d2/handler/cache.py: arredondar).
CREATE OR REPLACE FUNCTION d2.arredondar_coordenada(valor double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT round(valor::numeric, 5)::double precision
$$;
