-- An operator closes a review with no answer (`d2 revisoes descartar`, or psql:
-- SELECT * FROM d2.revisao_descartar(demanda_id, motivo, por)), in the caller's
-- transaction: recorded in d2.revisoes_tratadas (who: the name given and the database
-- login; when; why: required), the review leaves the queue, nothing is published. A
-- second call answers situacao 'ja_descartada' and writes nothing; a demanda that is not
-- in review, or in conflict, raises and writes nothing (d2.revisao_em_aberto).
-- SECURITY DEFINER, like d2.revisao_atribuir.
CREATE OR REPLACE FUNCTION d2.revisao_descartar(
    p_demanda_id uuid,
    p_motivo text,
    p_por text DEFAULT NULL
)
RETURNS TABLE (situacao text, demanda_id uuid, event_id uuid, tratado_em timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    revisao record;
    por text := nullif(btrim(p_por), '');
    motivo text := nullif(btrim(p_motivo), '');
BEGIN
    IF motivo IS NULL THEN
        RAISE EXCEPTION 'a reason (motivo) is needed' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO revisao FROM d2.revisao_em_aberto(p_demanda_id, 'descarte', NULL, por, motivo);
    demanda_id := p_demanda_id;
    event_id := revisao.event_id;
    IF revisao.ja_feita THEN
        situacao := 'ja_descartada';
        SELECT t.tratado_em INTO tratado_em
        FROM d2.revisoes_tratadas t WHERE t.event_id = revisao.event_id;
        RETURN NEXT;
        RETURN;
    END IF;
    INSERT INTO d2.revisoes_tratadas (
        event_id, demanda_id, passo, coordenadas_lat, coordenadas_lng, tratado_por,
        usuario_banco, motivo, revisao_desde
    )
    VALUES (
        revisao.event_id, p_demanda_id, 'descarte', revisao.coordenadas_lat,
        revisao.coordenadas_lng, coalesce(por, session_user), session_user, motivo,
        revisao.revisao_desde
    )
    RETURNING revisoes_tratadas.tratado_em INTO tratado_em;
    DELETE FROM d2.revisoes_geo_pendentes p WHERE p.demanda_id = p_demanda_id;
    DELETE FROM d2.regeo_fila_revisoes f WHERE f.demanda_id = p_demanda_id;
    situacao := 'descartada';
    RETURN NEXT;
END
$$;
