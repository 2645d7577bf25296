-- The batch resolver the worker calls: d2.resolver_territorio for many points in one
-- statement, one row per point that resolved, tagged with its 1-based position. The
-- answer is defined once, in resolver_territorio.sql, which PostgreSQL inlines here.
-- PL/pgSQL, not SQL: a SQL function with a SET clause cannot be inlined and is planned
-- again at every call (~20 ms: 40 µs per point of a batch of 500); PL/pgSQL keeps the
-- plan for the session. jit off: the plan's estimates made it compile for nothing.
-- enable_memoize off: the planner put a Memoize node (a cache keyed by the rounded
-- point) above each point's lookup; the points of a batch are distinct, so it never hit
-- and cost 10-25% of the server CPU of a batch of random points.
CREATE OR REPLACE FUNCTION d2.resolver_territorios(lats double precision[], lngs double precision[])
RETURNS TABLE (
    ordem integer, unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[]
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET jit = off
SET enable_memoize = off
AS $$
BEGIN
    RETURN QUERY
    SELECT pontos.ordem::integer, achado.unidade_civica_id, achado.nivel_minimo_resolvido,
           achado.cadeia_ucs
    FROM unnest(lats, lngs) WITH ORDINALITY AS pontos (lat, lng, ordem)
    CROSS JOIN LATERAL d2.resolver_territorio(pontos.lat, pontos.lng) achado;
END
$$;
