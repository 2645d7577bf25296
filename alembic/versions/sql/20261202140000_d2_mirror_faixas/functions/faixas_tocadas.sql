-- The bands of d2.mirror_faixas a geometry touches: every band whose closed strip meets
-- its bounding box, widened by the builder's folga (1e-7 degrees) so rounding never
-- leaves one out. Used by the invalidation trigger and by the first build.
CREATE OR REPLACE FUNCTION d2.faixas_tocadas(g geometry)
RETURNS SETOF integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT generate_series(
        floor((ST_YMin(g::box3d) - 1e-7) * d2.faixas_por_grau())::integer,
        floor((ST_YMax(g::box3d) + 1e-7) * d2.faixas_por_grau())::integer
    )
$$;
