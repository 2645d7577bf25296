-- A moderator's decision on one submission.
--   aceitar: a 'retida' becomes a community UC (d2.territorio_criar_uc, ids made here);
--            a version of a community UC (an alternative, a held confirmation, any
--            other) becomes its canonical geometry and its anchor (the consensus is
--            measured against it from then on); a 'nova' is endorsed. Either way what it
--            took no longer counts toward its município's budgets and ceiling: a
--            moderator reviewed it.
--   rejeitar: a version leaves the consensus (the others' scores are recomputed without
--            it); a 'nova' removes the UC it created (vandalism: its row leaves
--            core.uc_polygons, its history stays); a 'retida' is only recorded.
-- A decision changes what drawings are judged against: the territory's generation moves,
-- so a verdict reached before it is reached again (d2.territorio_submeter).
-- The geometry of a UC from another source (ibge, osm) is its importer's: accepting a
-- version of it is refused. Returns the UC concerned and what happened: criada,
-- canonica (its geometry changed), registrada (only the decision was recorded) or removida.
CREATE OR REPLACE FUNCTION d2.territorio_moderar(p_submissao uuid, p_acao text, p_por text)
RETURNS TABLE (unidade_civica_id uuid, efeito text)
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    s d2.territorio_submissoes%ROWTYPE;
    comunitaria boolean;
BEGIN
    IF p_acao NOT IN ('aceitar', 'rejeitar') THEN
        RAISE EXCEPTION 'ação % desconhecida (aceitar ou rejeitar)', p_acao
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO s FROM d2.territorio_submissoes t WHERE t.id = p_submissao FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'submissão % não encontrada', p_submissao
            USING ERRCODE = 'no_data_found';
    END IF;
    IF s.decisao = 'rejeitada' THEN
        RAISE EXCEPTION 'submissão % foi rejeitada na validação (%): não há o que moderar',
            p_submissao, s.motivo USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF s.decisao = 'retida' AND s.moderacao IS DISTINCT FROM 'pendente' THEN
        RAISE EXCEPTION 'submissão % já foi moderada (%)', p_submissao, s.moderacao
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    comunitaria := EXISTS (
        SELECT 1 FROM d2.territorio_ucs u WHERE u.unidade_civica_id = s.alvo_uc_id
    );
    IF p_acao = 'aceitar' AND s.decisao NOT IN ('nova', 'retida') AND NOT comunitaria THEN
        RAISE EXCEPTION 'a UC % não é comunitária: sua geometria vem do importador, não de um desenho',
            s.alvo_uc_id USING ERRCODE = 'invalid_parameter_value';
    END IF;

    UPDATE d2.territorio_submissoes t
    SET moderacao = CASE p_acao WHEN 'aceitar' THEN 'aceita' ELSE 'rejeitada' END,
        moderado_em = clock_timestamp(),
        moderado_por = left(p_por, 255)
    WHERE t.id = p_submissao;
    unidade_civica_id := s.alvo_uc_id;

    IF s.decisao = 'retida' THEN
        IF p_acao = 'aceitar' THEN
            unidade_civica_id := gen_random_uuid();
            PERFORM d2.territorio_criar_uc(p_submissao, unidade_civica_id, gen_random_uuid());
            efeito := 'criada';
        ELSE
            efeito := 'registrada';
        END IF;
    ELSIF p_acao = 'rejeitar' AND s.decisao = 'nova' THEN
        UPDATE d2.territorio_ucs u SET ativa = false, atualizada_em = clock_timestamp()
        WHERE u.unidade_civica_id = s.alvo_uc_id;
        DELETE FROM core.uc_polygons p
        WHERE p.unidade_civica_id = s.alvo_uc_id AND p.fonte = 'comunitario';
        efeito := 'removida';
    ELSE
        IF comunitaria AND p_acao = 'aceitar' THEN
            UPDATE d2.territorio_ucs u SET geom_ancora = s.geom
            WHERE u.unidade_civica_id = s.alvo_uc_id;
        END IF;
        IF comunitaria THEN
            -- The version joins or leaves the consensus: the scores are counted again.
            PERFORM d2.territorio_pontuar(s.alvo_uc_id);
        END IF;
        IF comunitaria AND d2.territorio_canonizar(s.alvo_uc_id) IS NOT NULL THEN
            efeito := 'canonica';
        ELSE
            efeito := 'registrada';
        END IF;
    END IF;
    UPDATE d2.territorio_estado SET geracao = geracao + 1;
    RETURN NEXT;
END
$$;
