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
--                level allows (each would be re-georeferenced and republished at once).
-- An author past the level's daily count is refused. The parent is the município for a
-- bairro (level 2); for a micro-area (level 1) the bairro holding 95% of it, else the
-- município.
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
    IF motivo IS NULL AND autor IS NOT NULL AND (
        SELECT count(*) FROM d2.territorio_submissoes s
        WHERE s.autor_id = autor AND s.criado_em > clock_timestamp() - interval '1 day'
    ) >= lim.max_por_autor_dia THEN
        motivo := pg_catalog.format('o autor já enviou %s desenhos nas últimas 24 horas',
                                    lim.max_por_autor_dia);
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
            SELECT coalesce(sum(ST_Area(ST_Intersection(c.geom, g))) FILTER (WHERE NOT c.comunitaria), 0) / ST_Area(g),
                   coalesce(sum(ST_Area(ST_Intersection(c.geom, g))) FILTER (WHERE c.comunitaria), 0) / ST_Area(g)
            INTO oficial, comunitaria
            FROM d2.territorio_candidatas(g, p_nivel) c;
            SELECT count(*) INTO tomadas
            FROM d2.resolucoes_geo r
            WHERE ST_Intersects(g, ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326));
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
        lugar_id, geracao, avaliada_em
    ) VALUES (
        p_event_id, 1, decisao, motivo, CASE WHEN decisao <> 'rejeitada' THEN g END,
        v.area_m2, coalesce(v.reparada, false), v.municipio_uc_id, parent, alvo, iou,
        interseccoes, nome_limpo, p_nivel, autor, (payload ->> 'lugar_id')::uuid,
        geracao, clock_timestamp()
    )
    ON CONFLICT (event_id) DO UPDATE
    SET decisao = EXCLUDED.decisao, motivo = EXCLUDED.motivo, geom = EXCLUDED.geom,
        area_m2 = EXCLUDED.area_m2, reparada = EXCLUDED.reparada,
        municipio_uc_id = EXCLUDED.municipio_uc_id, parent_uc_id = EXCLUDED.parent_uc_id,
        alvo_uc_id = EXCLUDED.alvo_uc_id, sobreposicao = EXCLUDED.sobreposicao,
        interseccoes = EXCLUDED.interseccoes, nome = EXCLUDED.nome, nivel = EXCLUDED.nivel,
        autor_id = EXCLUDED.autor_id, lugar_id = EXCLUDED.lugar_id,
        geracao = EXCLUDED.geracao, avaliada_em = EXCLUDED.avaliada_em;
    RETURN NEXT;
END
$$;
