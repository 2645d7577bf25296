-- A moderator's decision on one submission. 'aceitar' makes a version of a community UC
-- its canonical geometry (it then wins over the heuristic) or endorses a new UC;
-- 'rejeitar' drops a version from the consensus, or removes a UC the submission created
-- (vandalism): its row leaves core.uc_polygons, its history stays. The geometry of a UC
-- from another source (ibge, osm) is its importer's: accepting a version of it is refused.
-- Returns the UC concerned and what happened: canonica (its geometry changed),
-- registrada (only the decision was recorded) or removida.
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
    comunitaria := EXISTS (
        SELECT 1 FROM d2.territorio_ucs u WHERE u.unidade_civica_id = s.alvo_uc_id
    );
    IF p_acao = 'aceitar' AND s.decisao <> 'nova' AND NOT comunitaria THEN
        RAISE EXCEPTION 'a UC % não é comunitária: sua geometria vem do importador, não de um desenho',
            s.alvo_uc_id USING ERRCODE = 'invalid_parameter_value';
    END IF;

    UPDATE d2.territorio_submissoes t
    SET moderacao = CASE p_acao WHEN 'aceitar' THEN 'aceita' ELSE 'rejeitada' END,
        moderado_em = clock_timestamp(),
        moderado_por = left(p_por, 255)
    WHERE t.id = p_submissao;
    unidade_civica_id := s.alvo_uc_id;

    IF p_acao = 'rejeitar' AND s.decisao = 'nova' THEN
        UPDATE d2.territorio_ucs u SET ativa = false, atualizada_em = clock_timestamp()
        WHERE u.unidade_civica_id = s.alvo_uc_id;
        DELETE FROM core.uc_polygons p
        WHERE p.unidade_civica_id = s.alvo_uc_id AND p.fonte = 'comunitario';
        efeito := 'removida';
    ELSIF comunitaria AND d2.territorio_canonizar(s.alvo_uc_id) IS NOT NULL THEN
        efeito := 'canonica';
    ELSE
        efeito := 'registrada';
    END IF;
    RETURN NEXT;
END
$$;
