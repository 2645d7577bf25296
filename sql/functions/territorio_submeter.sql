-- Records one citizen-drawn polygon and acts on its evaluation (spec 8.5, layer 2), given
-- only its event: the verdict d2.territorio_avaliar left in d2.territorio_avaliacoes
-- (evaluated again here when missing, or when a drawing was submitted since: the
-- territory generation moved). 'nova' inserts a UC into core.uc_polygons (fonte
-- 'comunitario', ids made here, random: nobody chooses or predicts them); a
-- 'confirmacao' adds to the consensus of the UC it matches and may move its canonical
-- geometry; an alternative, a 'retida' and a confirmation the evaluation held (its motivo
-- says what it would take) wait for a moderator, and take no part in the consensus until
-- one accepts them. What each took (geom_tomada, area_tomada_m2, resolucoes_tomadas) is
-- kept for the município's budgets and ceiling (d2.territorio_julgar). Idempotent by event id: a
-- second call for the same event changes nothing and answers ja_registrada = true.
--
-- SECURITY DEFINER: the worker's role may not write core.uc_polygons nor read the event
-- log; this function is the only way it adds a UC, only for a real drawing event, only as
-- its evaluation decided. EXECUTE is granted to d2_worker alone.
CREATE OR REPLACE FUNCTION d2.territorio_submeter(p_event_id uuid, p_alerta_a_cada integer)
RETURNS TABLE (
    submissao_id uuid,
    decisao text,
    motivo text,
    unidade_civica_id uuid,
    municipio_uc_id uuid,
    parent_uc_id uuid,
    nivel integer,
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
    av d2.territorio_avaliacoes%ROWTYPE;
    uc_polygon uuid;
    pendente boolean;
    versao record;
BEGIN
    canonica_mudou := false;
    alerta := false;
    conflitos := 0;
    SELECT s.id, s.decisao, s.motivo, s.alvo_uc_id, s.municipio_uc_id, s.parent_uc_id,
           s.nivel, s.sobreposicao
    INTO submissao_id, decisao, motivo, unidade_civica_id, municipio_uc_id, parent_uc_id,
         nivel, sobreposicao
    FROM d2.territorio_submissoes s
    WHERE s.event_id = p_event_id;
    IF FOUND THEN
        ja_registrada := true;
        RETURN NEXT;
        RETURN;
    END IF;
    ja_registrada := false;

    SELECT * INTO av FROM d2.territorio_avaliacoes a WHERE a.event_id = p_event_id;
    IF NOT FOUND OR av.avaliada_em IS NULL
       OR av.geracao IS DISTINCT FROM (SELECT t.geracao FROM d2.territorio_estado t) THEN
        PERFORM d2.territorio_avaliar(p_event_id);
        SELECT * INTO av FROM d2.territorio_avaliacoes a WHERE a.event_id = p_event_id;
    END IF;

    submissao_id := gen_random_uuid();
    decisao := av.decisao;
    motivo := av.motivo;
    municipio_uc_id := av.municipio_uc_id;
    parent_uc_id := av.parent_uc_id;
    nivel := av.nivel;
    sobreposicao := av.sobreposicao;
    unidade_civica_id := CASE WHEN av.decisao = 'nova' THEN gen_random_uuid() ELSE av.alvo_uc_id END;
    pendente := av.decisao IN ('alternativa', 'retida')
                OR (av.decisao = 'confirmacao' AND av.motivo IS NOT NULL);

    -- The consensus score of this version: its intersections with the UC's versions in
    -- play, computed by the evaluation (with their sum); each of those gains the same.
    -- A version awaiting a moderator adds nothing (its scores are recounted when one
    -- accepts it: d2.territorio_moderar).
    IF av.interseccoes IS NOT NULL AND NOT pendente THEN
        FOR versao IN SELECT key::uuid AS id, value::double precision AS area
                      FROM jsonb_each_text(av.interseccoes) LOOP
            UPDATE d2.territorio_submissoes s SET pontuacao = s.pontuacao + versao.area
            WHERE s.id = versao.id;
        END LOOP;
    END IF;

    INSERT INTO d2.territorio_submissoes AS s (
        id, event_id, lugar_id, autor_id, nome, nivel, geom, area_m2, reparada,
        municipio_uc_id, parent_uc_id, decisao, motivo, alvo_uc_id, sobreposicao, moderacao,
        pontuacao, resolucoes_tomadas, geom_tomada, area_tomada_m2
    ) VALUES (
        submissao_id, p_event_id, av.lugar_id, av.autor_id, coalesce(av.nome, ''), av.nivel,
        av.geom, av.area_m2, coalesce(av.reparada, false), av.municipio_uc_id,
        av.parent_uc_id, av.decisao, av.motivo, unidade_civica_id, av.sobreposicao,
        CASE WHEN pendente THEN 'pendente' END,
        CASE WHEN pendente THEN 0 ELSE coalesce(av.pontuacao, 0) END,
        av.resolucoes_tomadas, av.geom_tomada, coalesce(av.area_tomada_m2, 0)
    );
    DELETE FROM d2.territorio_avaliacoes a WHERE a.event_id = p_event_id;
    UPDATE d2.territorio_estado SET geracao = geracao + 1;

    IF av.decisao = 'nova' THEN
        uc_polygon := gen_random_uuid();
        PERFORM d2.territorio_criar_uc(submissao_id, unidade_civica_id, uc_polygon);
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
