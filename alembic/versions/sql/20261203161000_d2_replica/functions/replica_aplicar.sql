-- One uc.poligono_* event into the event-synced replica d2.replica_uc (spec Phase 2),
-- for d2/replica.py, which has checked the payload against the Registry. Events carry
-- the polygon's whole state, so they apply in the log's order, last one wins:
--   adicionado / atualizado -> the row is written as the event says ('aplicado'; an
--     atualizado of a polygon the replica never saw is its state too: a log that starts
--     after the polygon was added still converges);
--   removido -> the row goes ('removido'), or nothing was there ('ausente');
--   an event already applied -> 'repetido', nothing written (idempotent by event_id).
-- The polygon's old and new ids go to d2.mirror_mudancas, as the capture trigger does for
-- core.uc_polygons: d2.mirror_aplicar takes them from there, through d2.uc_fonte.
-- SECURITY DEFINER: d2_worker feeds the replica only through here (no write grant on it).
CREATE OR REPLACE FUNCTION d2.replica_aplicar(p_event_id uuid, p_tipo varchar, p_payload jsonb)
RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    poligono uuid := (p_payload ->> 'uc_polygon_id')::uuid;
    uc uuid := (p_payload ->> 'unidade_civica_id')::uuid;
    anterior uuid;
    resultado text;
BEGIN
    INSERT INTO d2.replica_eventos (event_id, tipo, uc_polygon_id)
    VALUES (p_event_id, p_tipo, poligono)
    ON CONFLICT (event_id) DO NOTHING;
    IF NOT FOUND THEN
        RETURN 'repetido';
    END IF;

    SELECT r.unidade_civica_id INTO anterior FROM d2.replica_uc r WHERE r.id = poligono;
    IF p_tipo IN ('uc.poligono_adicionado', 'uc.poligono_atualizado') THEN
        INSERT INTO d2.replica_uc AS r
            (id, unidade_civica_id, nivel, nome, geometria, parent_uc_id, fonte, event_id)
        VALUES (poligono, uc, (p_payload ->> 'nivel')::integer,
                left(p_payload ->> 'nome', 255), p_payload -> 'geometria',
                (p_payload ->> 'parent_uc_id')::uuid, left(p_payload ->> 'fonte', 50),
                p_event_id)
        ON CONFLICT (id) DO UPDATE
        SET unidade_civica_id = EXCLUDED.unidade_civica_id, nivel = EXCLUDED.nivel,
            nome = EXCLUDED.nome, geometria = EXCLUDED.geometria,
            parent_uc_id = EXCLUDED.parent_uc_id, fonte = EXCLUDED.fonte,
            event_id = EXCLUDED.event_id, atualizado_em = clock_timestamp();
        resultado := 'aplicado';
    ELSIF p_tipo = 'uc.poligono_removido' THEN
        DELETE FROM d2.replica_uc r WHERE r.id = poligono;
        resultado := CASE WHEN FOUND THEN 'removido' ELSE 'ausente' END;
    ELSE
        RAISE EXCEPTION 'not a uc.poligono_* event: %', p_tipo
            USING ERRCODE = 'invalid_parameter_value';
    END IF;

    IF resultado <> 'ausente' THEN
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT poligono, u.uc
        FROM (VALUES (uc), (anterior)) u (uc)
        WHERE u.uc IS NOT NULL;
    END IF;
    UPDATE d2.replica_eventos e SET desfecho = resultado WHERE e.event_id = p_event_id;
    RETURN resultado;
END
$$;
