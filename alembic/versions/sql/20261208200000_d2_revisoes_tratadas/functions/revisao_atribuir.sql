-- An operator answers a review at the unit they chose (`d2 revisoes atribuir`, or psql:
-- SELECT * FROM d2.revisao_atribuir(demanda_id, unidade_civica_id, motivo, por)), in the
-- caller's transaction: the resolution is stored with the unit's chain (gps, media: the
-- point is the device's; no polygon holds it), the step recorded in d2.revisoes_tratadas
-- (who: the name given and the database login; when; why), the review leaves the queue,
-- and one demanda.georreferenciada is inserted into the event log through
-- d2.eventos_publicar, D-2's one door into it, with the payload the handler publishes for
-- a stored resolution (d2/handler/outputs.py, payload_saida; the command line checks it
-- against the Registry before it commits). A second call for the same demanda and unit
-- publishes nothing and answers situacao 'ja_atribuida'; a demanda that is not in
-- review, or in conflict, and a unit the mirror does not hold raise and write nothing
-- (d2.revisao_em_aberto). The point is the review's own: no argument can move it.
-- SECURITY DEFINER: d2_operador holds EXECUTE on this and on d2.revisao_descartar, and no
-- write on the tables or the log; the search_path is pinned by sql/grants.sql.
CREATE OR REPLACE FUNCTION d2.revisao_atribuir(
    p_demanda_id uuid,
    p_unidade_civica_id uuid,
    p_motivo text DEFAULT NULL,
    p_por text DEFAULT NULL
)
RETURNS TABLE (
    situacao text,
    demanda_id uuid,
    event_id uuid,
    unidade_civica_id uuid,
    nivel_minimo_resolvido integer,
    cadeia_ucs uuid[],
    distancia_m double precision,
    evento_publicado_id uuid,
    payload jsonb,
    correlacao_id uuid
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    revisao record;
    ponto geometry;
    por text := nullif(btrim(p_por), '');
    motivo text := nullif(btrim(p_motivo), '');
BEGIN
    IF p_unidade_civica_id IS NULL THEN
        RAISE EXCEPTION 'a unidade_civica_id is needed' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO revisao
    FROM d2.revisao_em_aberto(p_demanda_id, 'operador', p_unidade_civica_id, por, motivo);
    demanda_id := p_demanda_id;
    event_id := revisao.event_id;
    unidade_civica_id := p_unidade_civica_id;
    IF revisao.ja_feita THEN
        SELECT 'ja_atribuida', g.nivel_minimo_resolvido, g.cadeia_ucs, t.distancia_m,
               g.correlacao_id
        INTO situacao, nivel_minimo_resolvido, cadeia_ucs, distancia_m, correlacao_id
        FROM d2.resolucoes_geo g
        JOIN d2.revisoes_tratadas t ON t.event_id = g.event_id
        WHERE g.demanda_id = p_demanda_id;
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT m.nivel INTO nivel_minimo_resolvido
    FROM d2.mirror_uc m
    WHERE m.unidade_civica_id = p_unidade_civica_id
    ORDER BY m.prioridade, m.uc_polygon_id
    LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unit % is not in the mirror: no polygon of core.uc_polygons has it (d2 mirror sync --wait applies what waits)', p_unidade_civica_id
            USING ERRCODE = 'no_data_found';
    END IF;
    cadeia_ucs := coalesce(
        (SELECT c.cadeia_ucs FROM d2.mirror_cadeias c
         WHERE c.unidade_civica_id = p_unidade_civica_id),
        d2.cadeia_ucs(p_unidade_civica_id)
    );
    ponto := ST_SetSRID(ST_MakePoint(revisao.coordenadas_lng, revisao.coordenadas_lat), 4326);
    -- How far the chosen unit lies (for the record): its 16 pieces nearest in degrees,
    -- measured in metres as the near rule measures (d2.distancia_m).
    SELECT min(d2.distancia_m(q.geom, revisao.coordenadas_lat, revisao.coordenadas_lng))
    INTO distancia_m
    FROM (
        SELECT p.geom
        FROM d2.mirror_uc m
        JOIN d2.mirror_pieces p ON p.uc_polygon_id = m.uc_polygon_id
        WHERE m.unidade_civica_id = p_unidade_civica_id
        ORDER BY p.geom <-> ponto
        LIMIT 16
    ) q;
    correlacao_id := coalesce(
        (SELECT e.correlacao_id FROM d2.eventos e WHERE e.event_id = revisao.event_id),
        p_demanda_id
    );

    INSERT INTO d2.resolucoes_geo (
        id, demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs,
        metodo_resolucao, confianca_geo, coordenadas_lat, coordenadas_lng, event_id,
        correlacao_id
    )
    VALUES (
        gen_random_uuid(), p_demanda_id, p_unidade_civica_id, nivel_minimo_resolvido,
        cadeia_ucs, 'gps', 'media', revisao.coordenadas_lat, revisao.coordenadas_lng,
        revisao.event_id, correlacao_id
    );
    INSERT INTO d2.revisoes_tratadas (
        event_id, demanda_id, passo, unidade_civica_id, distancia_m, coordenadas_lat,
        coordenadas_lng, tratado_por, usuario_banco, motivo, revisao_desde
    )
    VALUES (
        revisao.event_id, p_demanda_id, 'operador', p_unidade_civica_id, distancia_m,
        revisao.coordenadas_lat, revisao.coordenadas_lng, coalesce(por, session_user),
        session_user, motivo, revisao.revisao_desde
    );
    DELETE FROM d2.revisoes_geo_pendentes p WHERE p.demanda_id = p_demanda_id;
    DELETE FROM d2.regeo_fila_revisoes f WHERE f.demanda_id = p_demanda_id;

    payload := jsonb_build_object(
        'demanda_id', p_demanda_id,
        'unidade_civica_id', p_unidade_civica_id,
        'nivel_minimo_resolvido', nivel_minimo_resolvido,
        'cadeia_ucs', to_jsonb(cadeia_ucs),
        'metodo_resolucao', 'gps',
        'confianca_geo', 'media',
        'coordenadas_lat', revisao.coordenadas_lat,
        'coordenadas_lng', revisao.coordenadas_lng
    );
    evento_publicado_id := gen_random_uuid();
    INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, correlacao_id, payload)
    VALUES (evento_publicado_id, 'demanda.georreferenciada', '1.0.0', 'D-2', correlacao_id,
            payload);
    situacao := 'atribuida';
    RETURN NEXT;
END
$$;
