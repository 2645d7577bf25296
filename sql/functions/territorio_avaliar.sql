-- Evaluates one citizen drawing, given only its event (spec 8.5, layer 2): reads the
-- lugar.cadastrado from core.event_log itself, validates the geometry
-- (d2.territorio_validar), decides against the territory, and keeps the verdict in
-- d2.territorio_avaliacoes for d2.territorio_submeter, which acts on it.
--
-- Why two steps: every geometry operation of a drawing happens here, in a statement
-- that writes only at its very end, so the session holds no transaction id (and no
-- event-log fence, no VACUUM horizon of the cluster) while GEOS works; the submission
-- that follows is bookkeeping. The caller counts the attempt first
-- (d2.territorio_tentar), in a transaction of its own, so a drawing whose evaluation
-- never returns is not evaluated again forever.
--
-- Decisions, against the polygons of the same level it touches (d2.territorio_candidatas;
-- for a community UC, measured against its anchor), by intersection over union:
--   > 0.8        confirmacao of that polygon
--   0.5 .. 0.8   alternativa of it (a moderator reviews it)
--   < 0.5        a new UC, unless a moderator must decide first ('retida'): when it
--                covers more than the level's share of an official UC (IBGE, OSM) or of
--                a community UC of its level, when it is larger than the level's
--                moderation area, or when it would take more stored answers than the
--                level allows (each would be re-georeferenced and republished at once);
--                when its name is that of an official UC it lies on; and when the new
--                UCs made without a moderator in its município, at its level, within
--                the level's window, this one included, would pass the area or the
--                answers budget, or would cover more than cobertura_max of one UC of its
--                level or coarser (up to the município).
-- What a drawing takes is judged by its effect, never by who claims to have drawn it:
-- autor_id is a field the producer writes, and no limit keys on it. The shares are
-- computed on the mirror's pieces (ST_Subdivide's, each a bounded number of vertices)
-- and on the window's drawings (each under the level's vertex cap), so GEOS's time is
-- bounded by the drawing's extent, not by the size of an official polygon.
-- The parent is the município for a bairro (level 2); for a micro-area (level 1) the
-- bairro holding 95% of it, else the município.
--
-- SECURITY DEFINER: d2_worker may neither read core.event_log nor write the verdicts; it
-- names an event, and nothing else, so a stolen login chooses no geometry and no id.
CREATE OR REPLACE FUNCTION d2.territorio_avaliar(p_event_id uuid)
RETURNS TABLE (decisao text, motivo text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    payload jsonb;
    lim d2.territorio_limites%ROWTYPE;
    v record;
    p_nivel integer;
    nome_limpo text;
    autor uuid;
    homonima text;
    gasto_area double precision;
    gasto_resolucoes bigint;
    cobertura double precision;
    coberta text;
    g geometry;
    parent uuid;
    alvo uuid;
    alvo_comunitario boolean;
    iou double precision;
    oficial double precision;
    comunitaria double precision;
    tomadas bigint;
    interseccoes jsonb;
    -- Read first: a drawing submitted while this one is evaluated makes the verdict stale
    -- (d2.territorio_submeter then evaluates it again).
    geracao bigint := (SELECT t.geracao FROM d2.territorio_estado t);
BEGIN
    SELECT e.payload INTO payload
    FROM core.event_log e
    WHERE e.event_id = p_event_id AND e.tipo = 'lugar.cadastrado';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'evento % não é um lugar.cadastrado', p_event_id
            USING ERRCODE = 'no_data_found';
    END IF;
    IF payload ->> 'tipo_lugar' IS DISTINCT FROM 'poligono_uc' THEN
        RAISE EXCEPTION 'evento % não é um polígono desenhado', p_event_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    p_nivel := (payload ->> 'nivel')::integer;
    autor := (payload ->> 'autor_id')::uuid;
    nome_limpo := d2.nome_limpo(payload ->> 'nome');

    SELECT * INTO v FROM d2.territorio_validar(payload -> 'geometria', p_nivel);
    SELECT * INTO lim FROM d2.territorio_limites l WHERE l.nivel = p_nivel;
    decisao := 'rejeitada';
    motivo := v.motivo;
    IF motivo IS NULL AND nome_limpo = '' THEN
        motivo := 'nome vazio';
    END IF;

    IF motivo IS NULL THEN
        g := v.geom;
        parent := v.municipio_uc_id;
        IF p_nivel = 1 THEN
            SELECT c.uc INTO parent
            FROM d2.territorio_candidatas(g, 2) c
            WHERE ST_Area(ST_Intersection(c.geom, g)) >= 0.95 * ST_Area(g)
            ORDER BY ST_Area(ST_Intersection(c.geom, g)) DESC, c.uc
            LIMIT 1;
            parent := coalesce(parent, v.municipio_uc_id);
        END IF;

        SELECT c.uc, c.comunitaria,
               ST_Area(ST_Intersection(c.ancora, g)) / NULLIF(ST_Area(ST_Union(c.ancora, g)), 0)
        INTO alvo, alvo_comunitario, iou
        FROM d2.territorio_candidatas(g, p_nivel) c
        ORDER BY 3 DESC NULLS LAST, c.uc
        LIMIT 1;
        iou := coalesce(iou, 0);
        IF iou > 0.8 THEN
            decisao := 'confirmacao';
        ELSIF iou >= 0.5 THEN
            decisao := 'alternativa';
        ELSE
            alvo := NULL;
            -- A community UC's share it would cover, too: a superset many times its size
            -- covers little of itself with it.
            SELECT coalesce(sum(x.area) FILTER (WHERE NOT x.comunitaria), 0) / ST_Area(g),
                   greatest(coalesce(sum(x.area) FILTER (WHERE x.comunitaria), 0) / ST_Area(g),
                            coalesce(max(x.area / NULLIF(ST_Area(x.geom), 0))
                                     FILTER (WHERE x.comunitaria), 0))
            INTO oficial, comunitaria
            FROM (
                SELECT c.geom, c.comunitaria, ST_Area(ST_Intersection(c.geom, g)) AS area
                FROM d2.territorio_candidatas(g, p_nivel) c
            ) x;
            SELECT count(*) INTO tomadas
            FROM d2.resolucoes_geo r
            WHERE ST_Intersects(g, ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326));
            -- What the window's new UCs of its level in its município, made without a
            -- moderator, took already: the budget is the place's, whoever drew them.
            SELECT coalesce(sum(s.area_m2), 0), coalesce(sum(s.resolucoes_tomadas), 0)
            INTO gasto_area, gasto_resolucoes
            FROM d2.territorio_submissoes s
            WHERE s.municipio_uc_id = v.municipio_uc_id AND s.nivel = p_nivel
              AND s.decisao = 'nova' AND s.moderacao IS NULL
              AND s.criado_em > clock_timestamp() - lim.janela_orcamento;
            -- An official UC it lies on whose name it repeats: two places of one name.
            -- Names from d2.uc_fonte: the mirror's own source (core.uc_polygons or the
            -- event-synced replica).
            SELECT u.nome INTO homonima
            FROM d2.mirror_pieces p
            JOIN d2.uc_fonte u ON u.id = p.uc_polygon_id
            WHERE p.prioridade = 0 AND p.geom && g AND ST_Intersects(p.geom, g)
              AND d2.nome_busca(u.nome) = d2.nome_busca(nome_limpo)
            ORDER BY p.nivel, u.nome
            LIMIT 1;
            -- The largest share of one official UC of its level or coarser (up to the
            -- município) that this drawing and the window's new UCs there would cover,
            -- measured on the mirror's pieces.
            WITH recentes AS (
                SELECT s.geom
                FROM d2.territorio_submissoes s
                WHERE s.municipio_uc_id = v.municipio_uc_id AND s.nivel = p_nivel
                  AND s.decisao = 'nova' AND s.moderacao IS NULL
                  AND s.criado_em > clock_timestamp() - lim.janela_orcamento
                UNION ALL
                SELECT g
            ), tocadas AS (
                SELECT DISTINCT p.uc_polygon_id
                FROM d2.mirror_pieces p
                WHERE p.nivel BETWEEN p_nivel AND 4 AND p.prioridade = 0
                  AND p.geom && g AND ST_Intersects(p.geom, g)
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
            decisao := 'retida';
            IF oficial > lim.sobreposicao_max THEN
                motivo := pg_catalog.format('cobre %s%% de UCs oficiais do nível %s',
                                            round((100 * oficial)::numeric), p_nivel);
            ELSIF comunitaria > lim.sobreposicao_max THEN
                motivo := pg_catalog.format('cobre %s%% de UCs comunitárias do nível %s',
                                            round((100 * comunitaria)::numeric), p_nivel);
            ELSIF v.area_m2 > lim.area_moderacao_m2 THEN
                motivo := pg_catalog.format('área %s m² acima de %s m²: um moderador decide',
                                            round(v.area_m2::numeric), lim.area_moderacao_m2);
            ELSIF tomadas > lim.max_resolucoes_tomadas THEN
                motivo := pg_catalog.format('tomaria %s respostas já dadas (máximo %s sem moderador)',
                                            tomadas, lim.max_resolucoes_tomadas);
            ELSIF homonima IS NOT NULL THEN
                motivo := pg_catalog.format('nome igual ao de uma UC oficial onde está (%s)',
                                            homonima);
            ELSIF gasto_area + v.area_m2 > lim.orcamento_area_m2 THEN
                motivo := pg_catalog.format(
                    'orçamento de área do município esgotado: %s m² de UCs novas sem moderador em %s (máximo %s m²)',
                    round((gasto_area + v.area_m2)::numeric), lim.janela_orcamento,
                    lim.orcamento_area_m2);
            ELSIF gasto_resolucoes + tomadas > lim.orcamento_resolucoes THEN
                motivo := pg_catalog.format(
                    'orçamento de respostas do município esgotado: %s tomadas sem moderador em %s (máximo %s)',
                    gasto_resolucoes + tomadas, lim.janela_orcamento, lim.orcamento_resolucoes);
            ELSIF cobertura > lim.cobertura_max THEN
                motivo := pg_catalog.format(
                    'com as UCs novas sem moderador em %s cobriria %s%% de %s (máximo %s%%)',
                    lim.janela_orcamento, round((100 * cobertura)::numeric),
                    coalesce(coberta, 'uma UC oficial'),
                    round((100 * lim.cobertura_max)::numeric));
            ELSE
                decisao := 'nova';
            END IF;
        END IF;
        IF decisao IN ('confirmacao', 'alternativa') AND alvo_comunitario THEN
            -- Its intersection with each version of the UC: the submission adds it to
            -- their consensus scores without one more geometry operation.
            SELECT coalesce(jsonb_object_agg(s.id::text, ST_Area(ST_Intersection(s.geom, g))), '{}')
            INTO interseccoes
            FROM d2.territorio_versoes(alvo) s
            WHERE s.geom && g;
        END IF;
    END IF;

    INSERT INTO d2.territorio_avaliacoes AS a (
        event_id, tentativas, decisao, motivo, geom, area_m2, reparada, municipio_uc_id,
        parent_uc_id, alvo_uc_id, sobreposicao, interseccoes, nome, nivel, autor_id,
        lugar_id, geracao, avaliada_em, resolucoes_tomadas
    ) VALUES (
        p_event_id, 1, decisao, motivo, CASE WHEN decisao <> 'rejeitada' THEN g END,
        v.area_m2, coalesce(v.reparada, false), v.municipio_uc_id, parent, alvo, iou,
        interseccoes, nome_limpo, p_nivel, autor, (payload ->> 'lugar_id')::uuid,
        geracao, clock_timestamp(), tomadas
    )
    ON CONFLICT (event_id) DO UPDATE
    SET decisao = EXCLUDED.decisao, motivo = EXCLUDED.motivo, geom = EXCLUDED.geom,
        area_m2 = EXCLUDED.area_m2, reparada = EXCLUDED.reparada,
        municipio_uc_id = EXCLUDED.municipio_uc_id, parent_uc_id = EXCLUDED.parent_uc_id,
        alvo_uc_id = EXCLUDED.alvo_uc_id, sobreposicao = EXCLUDED.sobreposicao,
        interseccoes = EXCLUDED.interseccoes, nome = EXCLUDED.nome, nivel = EXCLUDED.nivel,
        autor_id = EXCLUDED.autor_id, lugar_id = EXCLUDED.lugar_id,
        geracao = EXCLUDED.geracao, avaliada_em = EXCLUDED.avaliada_em,
        resolucoes_tomadas = EXCLUDED.resolucoes_tomadas;
    RETURN NEXT;
END
$$;
