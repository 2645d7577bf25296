-- The review an operator closes (d2.revisao_atribuir, d2.revisao_descartar), locked
-- FOR UPDATE, after the arguments both take are checked (a demanda; who and why of a
-- bounded length): an operator, `d2 revisoes reprocessar` or the worker's follow-up holding it
-- is waited for (the caller's lock_timeout bounds the wait), and what it left is judged
-- after. ja_feita is true, with the review's old event and point, when this demanda was
-- already closed by the same step at the same unit (a second call: the caller publishes
-- nothing more and says so). Anything else that is not an open review raises, saying
-- why, so that nothing is written: an unknown demanda (no_data_found), one answered,
-- discarded or attributed elsewhere, one in an undecided conflict (nothing is published
-- for it until an operator decides: d2 conflicts aceitar) (invalid_parameter_value).
-- Runs as its caller, which is one of those two SECURITY DEFINER functions: nobody else
-- holds EXECUTE on it.
CREATE OR REPLACE FUNCTION d2.revisao_em_aberto(
    p_demanda_id uuid, p_passo text, p_unidade_civica_id uuid, p_por text, p_motivo text
)
RETURNS TABLE (
    event_id uuid, coordenadas_lat double precision, coordenadas_lng double precision,
    revisao_desde timestamptz, ja_feita boolean
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    anterior d2.revisoes_tratadas%ROWTYPE;
    resposta d2.resolucoes_geo%ROWTYPE;
BEGIN
    IF p_demanda_id IS NULL THEN
        RAISE EXCEPTION 'a demanda_id is needed' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(btrim(p_por)) > 200 OR length(btrim(p_motivo)) > 2000 THEN
        RAISE EXCEPTION 'who is at most 200 characters and why at most 2000'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT p.event_id, p.coordenadas_lat, p.coordenadas_lng, p.criado_em, false
    INTO event_id, coordenadas_lat, coordenadas_lng, revisao_desde, ja_feita
    FROM d2.revisoes_geo_pendentes p
    WHERE p.demanda_id = p_demanda_id
    FOR UPDATE;
    IF FOUND THEN
        IF EXISTS (SELECT 1 FROM d2.conflitos_demanda c
                   WHERE c.demanda_id = p_demanda_id AND c.decidido_em IS NULL) THEN
            RAISE EXCEPTION 'demanda % is in an undecided conflict: an operator keeps one of its events first (d2 conflicts list)', p_demanda_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN NEXT;
        RETURN;
    END IF;
    SELECT t.* INTO anterior
    FROM d2.revisoes_tratadas t
    WHERE t.demanda_id = p_demanda_id
    ORDER BY t.tratado_em DESC, t.event_id
    LIMIT 1;
    SELECT g.* INTO resposta FROM d2.resolucoes_geo g WHERE g.demanda_id = p_demanda_id;
    IF anterior.passo = p_passo
       AND anterior.unidade_civica_id IS NOT DISTINCT FROM p_unidade_civica_id
       AND (p_passo = 'descarte' OR resposta.event_id = anterior.event_id) THEN
        event_id := anterior.event_id;
        coordenadas_lat := anterior.coordenadas_lat;
        coordenadas_lng := anterior.coordenadas_lng;
        revisao_desde := anterior.revisao_desde;
        ja_feita := true;
        RETURN NEXT;
        RETURN;
    END IF;
    IF resposta.id IS NOT NULL THEN
        RAISE EXCEPTION 'demanda % is not in review: it was answered at unit % (%)', p_demanda_id,
            resposta.unidade_civica_id,
            CASE WHEN anterior.passo = 'operador' AND anterior.event_id = resposta.event_id
                 THEN 'chosen by ' || coalesce(anterior.tratado_por, anterior.usuario_banco)
                      || ' at ' || to_char(anterior.tratado_em, 'YYYY-MM-DD HH24:MI:SS')
                 WHEN anterior.passo = 'proximidade' AND anterior.event_id = resposta.event_id
                 THEN 'by the near rule, ' || round(anterior.distancia_m::numeric, 1) || ' m away'
                 ELSE 'by ' || resposta.metodo_resolucao END
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF anterior.passo = 'descarte' THEN
        RAISE EXCEPTION 'demanda % is not in review: it was discarded by % at %', p_demanda_id,
            coalesce(anterior.tratado_por, anterior.usuario_banco),
            to_char(anterior.tratado_em, 'YYYY-MM-DD HH24:MI:SS')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RAISE EXCEPTION 'demanda % is not in review (d2 revisoes list shows the queue)', p_demanda_id
        USING ERRCODE = 'no_data_found';
END
$$;
