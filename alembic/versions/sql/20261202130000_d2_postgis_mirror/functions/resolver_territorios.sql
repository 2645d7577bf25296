-- Set-based form of d2.resolver_territorio: many points in one statement.
-- Returns one row per point that resolved, tagged with its 1-based position in the
-- input arrays; unresolved points are absent.
CREATE OR REPLACE FUNCTION d2.resolver_territorios(lats double precision[], lngs double precision[])
RETURNS TABLE (
    ordem integer, unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[]
)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT pontos.ordem::integer, r.unidade_civica_id, r.nivel_minimo_resolvido, r.cadeia_ucs
    FROM unnest(lats, lngs) WITH ORDINALITY AS pontos (lat, lng, ordem)
    CROSS JOIN LATERAL d2.resolver_territorio(pontos.lat, pontos.lng) r
$$;
