-- What a proposal would take, and whether the replica refuses it, for d2.replica_aplicar:
-- a polygon of a uc.poligono_adicionado / _atualizado that D-2's importers did not
-- publish (d2.poligonos_eventos), whatever origem or fonte it declares. Judged by its
-- effect on the territory and the answers already given, never by who it says it is:
--   - as a citizen's drawing is (d2.territorio_validar): only the levels citizens draw
--     (d2.territorio_limites: 1 and 2), their vertex and repair caps and area bounds,
--     95% inside one município;
--   - its parent exists in the mirror, is coarser, and holds at least 95% of it;
--   - it reaches at most p_limites.pedacos_max pieces of the mirror, and covers at most
--     p_limites.parte_max of any other UC's area, at any level (its parent's included):
--     the areas are summed over d2.mirror_pieces (64 vertices at most each) against the
--     validated polygon (capped by d2.territorio_limites.max_vertices), so every GEOS
--     call here is bounded whatever the territory's or the producer's polygons are;
--   - it does not take the place of other UCs (d2.replica_captura);
--   - it moves at most p_limites.respostas_max stored answers: points of
--     d2.resolucoes_geo inside it now answered by another UC of its level or coarser.
-- tomadas is that count; toma says the proposal takes something (answers, or a coarser
-- UC's interior point): it counts toward the replica's breaker.
-- No SET search_path: it runs with its caller's, d2.replica_aplicar's, pinned by
-- sql/grants.sql; calls are typed to match exactly.
CREATE OR REPLACE FUNCTION d2.replica_proposta(
    p_geometria jsonb, p_nivel integer, p_uc uuid, p_poligono uuid, p_pai uuid,
    p_limites d2.replica_limites
)
RETURNS TABLE (recusa text, toma boolean, tomadas integer)
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v record;
    g geometry;
    pai_nivel integer;
    pedacos integer;
    no_pai double precision;
    pior_uc uuid;
    pior_parte double precision;
    captura record;
BEGIN
    tomadas := 0;
    toma := false;
    SELECT * INTO v FROM d2.territorio_validar(p_geometria, p_nivel);
    IF v.motivo IS NOT NULL THEN
        recusa := 'as a drawing: ' || v.motivo;
        RETURN NEXT;
        RETURN;
    END IF;
    g := v.geom;

    SELECT max(m.nivel) INTO pai_nivel FROM d2.mirror_uc m WHERE m.unidade_civica_id = p_pai;
    IF p_pai IS NULL OR pai_nivel IS NULL OR pai_nivel <= p_nivel THEN
        recusa := pg_catalog.format(
            'its parent %s is not a UC of the mirror coarser than level %s',
            coalesce(p_pai::text, 'null'), p_nivel);
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT count(*) INTO pedacos
    FROM (SELECT 1 FROM d2.mirror_pieces p WHERE p.geom && g LIMIT p_limites.pedacos_max + 1) t;
    IF pedacos > p_limites.pedacos_max THEN
        recusa := pg_catalog.format('it reaches more than %s pieces of the mirror',
                                    p_limites.pedacos_max);
        RETURN NEXT;
        RETURN;
    END IF;

    -- Per UC it reaches, the area it would cover, from the pieces: the share of its
    -- parent it lies in, and the largest share of one UC's area it would take.
    WITH cobertas AS (
        SELECT p.unidade_civica_id AS uc, sum(ST_Area(ST_Intersection(p.geom, g))) AS coberta
        FROM d2.mirror_pieces p
        WHERE p.geom && g AND p.unidade_civica_id <> p_uc
        GROUP BY 1
    )
    SELECT (SELECT c.coberta FROM cobertas c WHERE c.uc = p_pai) / nullif(ST_Area(g), 0),
           maior.uc, maior.parte
    INTO no_pai, pior_uc, pior_parte
    FROM (SELECT 1) um
    LEFT JOIN LATERAL (
        SELECT c.uc, c.coberta / a.area AS parte
        FROM cobertas c
        CROSS JOIN LATERAL (
            SELECT sum(ST_Area(m.geom)) AS area
            FROM d2.mirror_uc m WHERE m.unidade_civica_id = c.uc
        ) a
        WHERE a.area > 0
        ORDER BY 2 DESC, 1
        LIMIT 1
    ) maior ON true;
    IF coalesce(no_pai, 0) < 0.95 THEN
        recusa := pg_catalog.format('its parent %s holds %s%% of it (at least 95%% needed)',
                                    p_pai, round((100 * coalesce(no_pai, 0))::numeric));
        RETURN NEXT;
        RETURN;
    END IF;

    IF pior_parte > p_limites.parte_max THEN
        recusa := pg_catalog.format('it would cover %s%% of UC %s (at most %s%%)',
                                    round((100 * pior_parte)::numeric), pior_uc,
                                    round((100 * p_limites.parte_max)::numeric));
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT c.recusa, c.toma INTO captura
    FROM d2.replica_captura(p_geometria, p_nivel, p_uc, p_poligono, p_pai) c;
    IF captura.recusa IS NOT NULL THEN
        recusa := captura.recusa;
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT count(*) INTO tomadas
    FROM d2.resolucoes_geo r
    WHERE ST_Intersects(g, ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326))
      AND r.unidade_civica_id <> p_uc
      AND r.nivel_minimo_resolvido >= p_nivel;
    IF tomadas > p_limites.respostas_max THEN
        recusa := pg_catalog.format('it would take %s stored answers (at most %s)',
                                    tomadas, p_limites.respostas_max);
        RETURN NEXT;
        RETURN;
    END IF;
    toma := captura.toma OR tomadas > 0;
    RETURN NEXT;
END
$$;
