-- Metres from the point (lat, lng) to a geometry, measured as the resolver sees its edges:
-- straight lines in longitude and latitude (its containment test is planar), not great
-- circles (geography bends a 5° edge some 2.6 km towards the pole at 30° S, enough to
-- put a point the resolver leaves outside inside the polygon). The geometry is moved to
-- the point and scaled by the metres a degree of longitude and of latitude spans there on
-- the WGS 84 (and SIRGAS 2000) ellipsoid, then measured in the plane: within the near
-- rule's 2 km the scale changes by under 0.02 %, a fraction of a metre.
-- A plain SQL expression, inlined where it is called (d2.resolver_proximo,
-- d2.revisao_atribuir).
CREATE OR REPLACE FUNCTION d2.distancia_m(geom geometry, lat double precision, lng double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ST_Distance(
        ST_Scale(
            ST_Translate(geom, -lng, -lat),
            6378137.0 * cos(radians(lat)) * pi() / 180
                / sqrt(1 - 0.00669437999014 * sin(radians(lat)) ^ 2),
            6335439.327292 * pi() / 180
                / (1 - 0.00669437999014 * sin(radians(lat)) ^ 2) ^ 1.5
        ),
        ST_SetSRID(ST_MakePoint(0, 0), ST_SRID(geom))
    )
$$;
