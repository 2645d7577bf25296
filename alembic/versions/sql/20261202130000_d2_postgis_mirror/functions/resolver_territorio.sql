-- The fixed interface (DESIGN.md): the smallest civic unit containing the point and its
-- parent chain; zero rows when no polygon contains it.
--   * boundary-inclusive (ST_Intersects), so a point on a border or on a subdivision
--     cut line is inside (decision 1);
--   * smallest nivel first, ties broken by unidade_civica_id: same point, same answer;
--   * coordinates rounded to 5 decimals first, so the answer is a pure function of the
--     cache key (decision 2).
CREATE OR REPLACE FUNCTION d2.resolver_territorio(lat double precision, lng double precision)
RETURNS TABLE (unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[])
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT achado.unidade_civica_id, achado.nivel, d2.cadeia_ucs(achado.unidade_civica_id)
    FROM (
        SELECT p.unidade_civica_id, p.nivel
        FROM d2.mirror_pieces p
        WHERE ST_Intersects(
            p.geom,
            ST_SetSRID(
                ST_MakePoint(d2.arredondar_coordenada(lng), d2.arredondar_coordenada(lat)),
                4326
            )
        )
        ORDER BY p.nivel, p.unidade_civica_id
        LIMIT 1
    ) achado
$$;
