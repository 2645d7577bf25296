-- What a change of the community territory would take, and whether it may take it
-- without a moderator (spec 8.5, layer 2). Called by d2.territorio_avaliar for every
-- drawing that would change a unit's shape: a new unit takes its whole drawing; a new
-- version of an existing unit (a confirmation, an alternative, or the consensus moving
-- to another version) takes the new shape minus the current one. Either is judged the
-- same way, so that cutting a change into versions of a small unit gains nothing:
--   - the share of official UCs of its level it covers, and of community UCs other than
--     its own (all together, or of one of them), above sobreposicao_max;
--   - its area above area_moderacao_m2;
--   - the stored answers inside it above max_resolucoes_tomadas;
--   - the município's budgets over the window (janela_orcamento): area of its level
--     (orcamento_area_m2), answers (orcamento_resolucoes), and the share of one official
--     UC of its level or coarser, up to the município, covered (cobertura_max), by what
--     the changes no moderator reviewed took there, this one included;
--   - the município's ceiling, with no window: what every change no moderator reviewed
--     took there, area of its level (teto_area_m2) and answers of every level
--     (teto_resolucoes): a patient drawer cannot spend one window's budget after another.
-- Returns the reason when a moderator must decide (NULL otherwise), with what it takes:
-- area (m², spheroid) and stored answers. A change that takes nothing passes. The shares
-- are measured on the mirror's pieces and on earlier changes (each under the vertex cap):
-- GEOS's time follows the change's extent, never the size of an official polygon.
-- What it took is counted while no moderator has reviewed it: d2.territorio_submissoes
-- rows of a 'nova' or a 'confirmacao' with moderacao NULL (a moderator's acceptance or
-- rejection ends the count; an alternative or a held version waits, counting nothing).
CREATE OR REPLACE FUNCTION d2.territorio_julgar(
    p_tomada geometry, p_nivel integer, p_municipio uuid, p_alvo uuid
)
RETURNS TABLE (motivo text, area_m2 double precision, tomadas bigint)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    lim d2.territorio_limites%ROWTYPE;
    oficial double precision;
    comunitaria double precision;
    gasto_area double precision;
    gasto_resolucoes bigint;
    total_area double precision;
    total_resolucoes bigint;
    cobertura double precision;
    coberta text;
BEGIN
    area_m2 := coalesce(ST_Area(p_tomada::geography), 0);
    tomadas := 0;
    IF p_tomada IS NULL OR ST_IsEmpty(p_tomada) OR area_m2 = 0 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    SELECT * INTO STRICT lim FROM d2.territorio_limites l WHERE l.nivel = p_nivel;

    -- A community UC's share it would cover, too: a superset many times its size covers
    -- little of itself with it.
    SELECT coalesce(sum(x.area) FILTER (WHERE NOT x.comunitaria), 0) / ST_Area(p_tomada),
           greatest(coalesce(sum(x.area) FILTER (WHERE x.comunitaria), 0) / ST_Area(p_tomada),
                    coalesce(max(x.area / NULLIF(ST_Area(x.geom), 0))
                             FILTER (WHERE x.comunitaria), 0))
    INTO oficial, comunitaria
    FROM (
        SELECT c.geom, c.comunitaria, ST_Area(ST_Intersection(c.geom, p_tomada)) AS area
        FROM d2.territorio_candidatas(p_tomada, p_nivel) c
        WHERE c.uc IS DISTINCT FROM p_alvo
    ) x;
    SELECT count(*) INTO tomadas
    FROM d2.resolucoes_geo r
    WHERE ST_Intersects(p_tomada,
                        ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326));

    -- What the changes no moderator reviewed took in its município: within the window
    -- (the budgets), and in all (the ceiling; answers at every level).
    SELECT coalesce(sum(s.area_tomada_m2) FILTER (WHERE s.nivel = p_nivel
                        AND s.criado_em > clock_timestamp() - lim.janela_orcamento), 0),
           coalesce(sum(s.resolucoes_tomadas) FILTER (WHERE s.nivel = p_nivel
                        AND s.criado_em > clock_timestamp() - lim.janela_orcamento), 0),
           coalesce(sum(s.area_tomada_m2) FILTER (WHERE s.nivel = p_nivel), 0),
           coalesce(sum(s.resolucoes_tomadas), 0)
    INTO gasto_area, gasto_resolucoes, total_area, total_resolucoes
    FROM d2.territorio_submissoes s
    WHERE s.municipio_uc_id = p_municipio
      AND s.decisao IN ('nova', 'confirmacao') AND s.moderacao IS NULL;

    -- The largest share of one official UC of its level or coarser (up to the município)
    -- that this change and the window's unreviewed ones there would cover, measured on
    -- the mirror's pieces.
    WITH recentes AS (
        SELECT s.geom_tomada AS geom
        FROM d2.territorio_submissoes s
        WHERE s.municipio_uc_id = p_municipio AND s.nivel = p_nivel
          AND s.decisao IN ('nova', 'confirmacao') AND s.moderacao IS NULL
          AND s.geom_tomada IS NOT NULL
          AND s.criado_em > clock_timestamp() - lim.janela_orcamento
        UNION ALL
        SELECT p_tomada
    ), tocadas AS (
        SELECT DISTINCT p.uc_polygon_id
        FROM d2.mirror_pieces p
        WHERE p.nivel BETWEEN p_nivel AND 4 AND p.prioridade = 0
          AND p.geom && p_tomada AND ST_Intersects(p.geom, p_tomada)
    )
    SELECT c.cobertura, u.nome INTO cobertura, coberta
    FROM tocadas t
    CROSS JOIN LATERAL (
        SELECT sum(ST_Area(ST_Intersection(p.geom, r.geom)))
               / NULLIF((SELECT ST_Area(m.geom) FROM d2.mirror_uc m
                         WHERE m.uc_polygon_id = t.uc_polygon_id), 0) AS cobertura
        FROM d2.mirror_pieces p
        JOIN recentes r ON p.geom && r.geom
        WHERE p.uc_polygon_id = t.uc_polygon_id
    ) c
    LEFT JOIN d2.uc_fonte u ON u.id = t.uc_polygon_id
    ORDER BY c.cobertura DESC NULLS LAST, u.nome
    LIMIT 1;

    IF oficial > lim.sobreposicao_max THEN
        motivo := pg_catalog.format('cobre %s%% de UCs oficiais do nível %s',
                                    round((100 * oficial)::numeric), p_nivel);
    ELSIF comunitaria > lim.sobreposicao_max THEN
        motivo := pg_catalog.format('cobre %s%% de UCs comunitárias do nível %s',
                                    round((100 * comunitaria)::numeric), p_nivel);
    ELSIF area_m2 > lim.area_moderacao_m2 THEN
        motivo := pg_catalog.format('área %s m² acima de %s m²: um moderador decide',
                                    round(area_m2::numeric), lim.area_moderacao_m2);
    ELSIF tomadas > lim.max_resolucoes_tomadas THEN
        motivo := pg_catalog.format('tomaria %s respostas já dadas (máximo %s sem moderador)',
                                    tomadas, lim.max_resolucoes_tomadas);
    ELSIF gasto_area + area_m2 > lim.orcamento_area_m2 THEN
        motivo := pg_catalog.format(
            'orçamento de área do município esgotado: %s m² tomados sem moderador em %s (máximo %s m²)',
            round((gasto_area + area_m2)::numeric), lim.janela_orcamento, lim.orcamento_area_m2);
    ELSIF gasto_resolucoes + tomadas > lim.orcamento_resolucoes THEN
        motivo := pg_catalog.format(
            'orçamento de respostas do município esgotado: %s tomadas sem moderador em %s (máximo %s)',
            gasto_resolucoes + tomadas, lim.janela_orcamento, lim.orcamento_resolucoes);
    ELSIF cobertura > lim.cobertura_max THEN
        motivo := pg_catalog.format(
            'com as mudanças sem moderador em %s cobriria %s%% de %s (máximo %s%%)',
            lim.janela_orcamento, round((100 * cobertura)::numeric),
            coalesce(coberta, 'uma UC oficial'), round((100 * lim.cobertura_max)::numeric));
    ELSIF total_area + area_m2 > lim.teto_area_m2 THEN
        motivo := pg_catalog.format(
            'teto de área do município: %s m² tomados por UCs que nenhum moderador revisou (máximo %s m²)',
            round((total_area + area_m2)::numeric), lim.teto_area_m2);
    ELSIF total_resolucoes + tomadas > lim.teto_resolucoes THEN
        motivo := pg_catalog.format(
            'teto de respostas do município: %s tomadas por UCs que nenhum moderador revisou (máximo %s)',
            total_resolucoes + tomadas, lim.teto_resolucoes);
    END IF;
    RETURN NEXT;
END
$$;
