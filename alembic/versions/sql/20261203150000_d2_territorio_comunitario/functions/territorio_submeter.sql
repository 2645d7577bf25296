-- Records one citizen-drawn polygon and acts on the consensus (spec 8.5, layer 2):
-- 'nova' inserts a UC into core.uc_polygons (fonte 'comunitario', the ids given by the
-- caller, uuid5 over the submission); 'confirmacao' and 'alternativa' count against the
-- UC they overlap and may move its canonical geometry; an alternative waits for a
-- moderator. Idempotent by event id: a second call for the same event changes nothing
-- and answers ja_registrada = true.
--
-- SECURITY DEFINER: the worker's role may not write core.uc_polygons; this function is
-- the only way it adds a UC there, and only one that passed d2.territorio_avaliar.
-- EXECUTE is granted to d2_worker alone.
CREATE OR REPLACE FUNCTION d2.territorio_submeter(
    p_event_id uuid,
    p_lugar_id uuid,
    p_autor_id uuid,
    p_nome text,
    p_nivel integer,
    p_geometria jsonb,
    p_submissao_id uuid,
    p_uc_id uuid,
    p_uc_polygon_id uuid,
    p_alerta_a_cada integer
)
RETURNS TABLE (
    submissao_id uuid,
    decisao text,
    motivo text,
    unidade_civica_id uuid,
    municipio_uc_id uuid,
    parent_uc_id uuid,
    sobreposicao double precision,
    canonica_mudou boolean,
    conflitos integer,
    alerta boolean,
    ja_registrada boolean
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    av record;
    nome_limpo text := left(btrim(coalesce(p_nome, '')), 255);
BEGIN
    canonica_mudou := false;
    alerta := false;
    conflitos := 0;
    SELECT s.id, s.decisao, s.motivo, s.alvo_uc_id, s.municipio_uc_id, s.parent_uc_id,
           s.sobreposicao
    INTO submissao_id, decisao, motivo, unidade_civica_id, municipio_uc_id, parent_uc_id,
         sobreposicao
    FROM d2.territorio_submissoes s
    WHERE s.event_id = p_event_id;
    IF FOUND THEN
        ja_registrada := true;
        RETURN NEXT;
        RETURN;
    END IF;
    ja_registrada := false;

    SELECT * INTO av FROM d2.territorio_avaliar(p_geometria, p_nivel);
    IF av.decisao <> 'rejeitada' AND nome_limpo = '' THEN
        av.decisao := 'rejeitada';
        av.motivo := 'nome vazio';
    END IF;
    submissao_id := p_submissao_id;
    decisao := av.decisao;
    motivo := av.motivo;
    municipio_uc_id := av.municipio_uc_id;
    parent_uc_id := av.parent_uc_id;
    sobreposicao := av.sobreposicao;
    unidade_civica_id := CASE WHEN av.decisao = 'nova' THEN p_uc_id ELSE av.alvo_uc_id END;

    INSERT INTO d2.territorio_submissoes AS s (
        id, event_id, lugar_id, autor_id, nome, nivel, geom, area_m2, reparada,
        municipio_uc_id, parent_uc_id, decisao, motivo, alvo_uc_id, sobreposicao, moderacao
    ) VALUES (
        p_submissao_id, p_event_id, p_lugar_id, p_autor_id, nome_limpo, p_nivel, av.geom,
        av.area_m2, coalesce(av.reparada, false), av.municipio_uc_id, av.parent_uc_id,
        av.decisao, av.motivo, unidade_civica_id, av.sobreposicao,
        CASE WHEN av.decisao = 'alternativa' THEN 'pendente' END
    );

    IF av.decisao = 'nova' THEN
        INSERT INTO core.uc_polygons (
            id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte, metadados
        ) VALUES (
            p_uc_polygon_id, p_uc_id, p_nivel, av.parent_uc_id, nome_limpo,
            ST_AsGeoJSON(av.geom, 7)::jsonb, 'comunitario',
            pg_catalog.jsonb_build_object(
                'submissao_id', p_submissao_id, 'lugar_id', p_lugar_id,
                'event_id', p_event_id, 'municipio_uc_id', av.municipio_uc_id
            )
        );
        INSERT INTO d2.territorio_ucs (
            unidade_civica_id, uc_polygon_id, nivel, nome, municipio_uc_id,
            submissao_canonica, geom
        ) VALUES (
            p_uc_id, p_uc_polygon_id, p_nivel, nome_limpo, av.municipio_uc_id,
            p_submissao_id, av.geom
        );
    ELSIF av.decisao IN ('confirmacao', 'alternativa') THEN
        canonica_mudou := d2.territorio_canonizar(av.alvo_uc_id) IS NOT NULL;
        IF av.decisao = 'alternativa' THEN
            SELECT count(*) INTO conflitos
            FROM d2.territorio_submissoes s
            WHERE s.alvo_uc_id = av.alvo_uc_id AND s.decisao = 'alternativa';
            alerta := p_alerta_a_cada > 0 AND conflitos % p_alerta_a_cada = 0;
        END IF;
    END IF;
    RETURN NEXT;
END
$$;
