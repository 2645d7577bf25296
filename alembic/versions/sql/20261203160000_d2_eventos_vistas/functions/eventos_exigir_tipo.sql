-- The check every d2.eventos_* function makes before it reads core.event_log for
-- d2_worker: only a type of d2.eventos_tipos_lidos(), else insufficient_privilege.
CREATE OR REPLACE FUNCTION d2.eventos_exigir_tipo(p_tipo varchar)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_tipo IS NULL OR NOT p_tipo = ANY (d2.eventos_tipos_lidos()) THEN
        RAISE EXCEPTION 'D-2 does not read events of type %', coalesce(p_tipo, 'NULL')
            USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$$;
