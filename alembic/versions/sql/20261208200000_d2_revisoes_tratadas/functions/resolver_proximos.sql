-- The near rule (d2.resolver_proximo) for many points in one statement, one row per
-- point it answers, tagged with its 1-based position: the worker asks it for the points
-- of a batch that d2.resolver_territorios left in no polygon, and `d2 revisoes
-- reprocessar` for the review queue. The answer is defined once, in
-- resolver_proximo.sql. PL/pgSQL, like d2.resolver_territorios: its plan is kept for the
-- session.
CREATE OR REPLACE FUNCTION d2.resolver_proximos(
    lats double precision[],
    lngs double precision[],
    limite_m double precision DEFAULT 100,
    margem_m double precision DEFAULT 500
)
RETURNS TABLE (
    ordem integer, unidade_civica_id uuid, nivel_minimo_resolvido integer, cadeia_ucs uuid[],
    distancia_m double precision
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET jit = off
AS $$
BEGIN
    RETURN QUERY
    SELECT pontos.ordem::integer, achado.unidade_civica_id, achado.nivel_minimo_resolvido,
           achado.cadeia_ucs, achado.distancia_m
    FROM unnest(lats, lngs) WITH ORDINALITY AS pontos (lat, lng, ordem)
    CROSS JOIN LATERAL d2.resolver_proximo(
        pontos.lat, pontos.lng, resolver_proximos.limite_m, resolver_proximos.margem_m
    ) achado;
END
$$;
