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
--   < 0.5        a new UC, unless a moderator must decide first ('retida'): when its name
--                repeats an official place's (d2.territorio_homonima), or when what it
--                would take, all of it, passes a bound (d2.territorio_julgar: shares of
--                other UCs, area, stored answers, the município's budgets over the window
--                and its ceiling).
-- A version of a community UC changes a shape citizens already rely on, so it is judged
-- the same way, by what it would take: the new shape minus the current one, and, for a
-- confirmation (which joins the consensus at once), the shape the consensus would then
-- move to (d2.territorio_escolha, as d2.territorio_canonizar will choose) minus the
-- current one. Past any bound, or with a part that does not overlap the current shape
-- (overlap part by part, not of the whole: a far part rides on a close one), it waits
-- for a moderator (its motivo set; d2.territorio_submeter marks it 'pendente', and a
-- version awaiting a moderator takes no part in the consensus). An alternative always
-- waits; its motivo tells the moderator what it would take.
-- What a drawing takes is judged by its effect, never by who claims to have drawn it:
-- autor_id is a field the producer writes, and no limit keys on it; a version of another
-- citizen's unit is a claim like any other.
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
    v record;
    p_nivel integer;
    nome_limpo text;
    autor uuid;
    homonima text;
    julgado record;
    g geometry;
    atual geometry;
    movida geometry;
    tomada geometry;
    area_tomada double precision;
    escolhida uuid;
    pontos double precision;
    parent uuid;
    alvo uuid;
    alvo_comunitario boolean;
    iou double precision;
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
            homonima := d2.territorio_homonima(nome_limpo, g, v.municipio_uc_id);
            IF homonima IS NOT NULL THEN
                decisao := 'retida';
                motivo := pg_catalog.format('nome igual ao de uma UC oficial (%s)', homonima);
            ELSE
                tomada := g;
                SELECT * INTO julgado
                FROM d2.territorio_julgar(tomada, p_nivel, v.municipio_uc_id, NULL);
                area_tomada := julgado.area_m2;
                tomadas := julgado.tomadas;
                motivo := julgado.motivo;
                decisao := CASE WHEN motivo IS NULL THEN 'nova' ELSE 'retida' END;
            END IF;
        END IF;
        IF decisao IN ('confirmacao', 'alternativa') AND alvo_comunitario THEN
            SELECT t.geom INTO atual FROM d2.territorio_ucs t WHERE t.unidade_civica_id = alvo;
            -- Its intersection with each version in play: the submission adds it to
            -- their consensus scores without one more geometry operation.
            SELECT coalesce(jsonb_object_agg(s.id::text, ST_Area(ST_Intersection(s.geom, g))), '{}')
            INTO interseccoes
            FROM d2.territorio_versoes(alvo) s
            WHERE s.geom && g;
            SELECT coalesce(sum(x.value::double precision), 0) INTO pontos
            FROM jsonb_each_text(interseccoes) x;
            IF decisao = 'confirmacao' THEN
                escolhida := d2.territorio_escolha(alvo, interseccoes, pontos);
                SELECT s.geom INTO movida
                FROM d2.territorio_submissoes s
                JOIN d2.territorio_ucs t ON t.unidade_civica_id = alvo
                WHERE s.id = escolhida AND s.id <> t.submissao_canonica;
            END IF;
            IF movida IS NOT NULL THEN
                movida := ST_Union(g, movida);
            END IF;
            IF EXISTS (
                SELECT 1 FROM ST_Dump(coalesce(movida, g)) d
                WHERE NOT ST_Intersects(d.geom, atual)
                   OR ST_Area(ST_Intersection(d.geom, atual)) = 0
            ) THEN
                motivo := 'uma parte do desenho não se sobrepõe à forma atual da UC: um moderador decide';
            END IF;
            tomada := ST_Difference(coalesce(movida, g), atual);
            SELECT * INTO julgado
            FROM d2.territorio_julgar(tomada, p_nivel, v.municipio_uc_id, alvo);
            area_tomada := julgado.area_m2;
            tomadas := julgado.tomadas;
            motivo := coalesce(motivo, julgado.motivo);
        END IF;
        IF tomada IS NOT NULL THEN
            tomada := ST_Multi(ST_CollectionExtract(tomada, 3));
            tomada := CASE WHEN ST_IsEmpty(tomada) THEN NULL ELSE tomada END;
        END IF;
    END IF;

    INSERT INTO d2.territorio_avaliacoes AS a (
        event_id, tentativas, decisao, motivo, geom, area_m2, reparada, municipio_uc_id,
        parent_uc_id, alvo_uc_id, sobreposicao, interseccoes, nome, nivel, autor_id,
        lugar_id, geracao, avaliada_em, resolucoes_tomadas, geom_tomada, area_tomada_m2,
        pontuacao
    ) VALUES (
        p_event_id, 1, decisao, motivo, CASE WHEN decisao <> 'rejeitada' THEN g END,
        v.area_m2, coalesce(v.reparada, false), v.municipio_uc_id, parent, alvo, iou,
        interseccoes, nome_limpo, p_nivel, autor, (payload ->> 'lugar_id')::uuid,
        geracao, clock_timestamp(), tomadas, tomada, area_tomada, pontos
    )
    ON CONFLICT (event_id) DO UPDATE
    SET decisao = EXCLUDED.decisao, motivo = EXCLUDED.motivo, geom = EXCLUDED.geom,
        area_m2 = EXCLUDED.area_m2, reparada = EXCLUDED.reparada,
        municipio_uc_id = EXCLUDED.municipio_uc_id, parent_uc_id = EXCLUDED.parent_uc_id,
        alvo_uc_id = EXCLUDED.alvo_uc_id, sobreposicao = EXCLUDED.sobreposicao,
        interseccoes = EXCLUDED.interseccoes, nome = EXCLUDED.nome, nivel = EXCLUDED.nivel,
        autor_id = EXCLUDED.autor_id, lugar_id = EXCLUDED.lugar_id,
        geracao = EXCLUDED.geracao, avaliada_em = EXCLUDED.avaliada_em,
        resolucoes_tomadas = EXCLUDED.resolucoes_tomadas, geom_tomada = EXCLUDED.geom_tomada,
        area_tomada_m2 = EXCLUDED.area_tomada_m2, pontuacao = EXCLUDED.pontuacao;
    RETURN NEXT;
END
$$;
