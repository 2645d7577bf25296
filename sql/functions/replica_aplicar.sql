-- One uc.poligono_* event into the event-synced replica d2.replica_uc (spec Phase 2), for
-- d2/territorio/replica.py, which has checked its payload against the Registry. The
-- event is read here, from core.event_log by its id, so what is checked and applied is
-- the logged event itself, not what a caller passes. Events carry the polygon's whole
-- state, so they apply in the log's order, last one wins:
--   adicionado / atualizado -> the row is written as the event says ('aplicado'; an
--     atualizado of a polygon the replica never saw is its state too: a log that starts
--     after the polygon was added still converges);
--   removido -> the row goes ('removido'), or nothing was there ('ausente');
--   an event already applied -> 'repetido', nothing written (idempotent by event_id);
--     one the operator dropped while the breaker held it -> 'descartado'.
-- Who may change what (docs/design.md, decision 11): any producer can write core.event_log and
-- declare any origem, so
--   - the origem must be in p_origens (D2_REPLICA_ORIGENS), else 'recusado';
--   - an event is the importers' only when d2.poligonos_eventos, which only the owner
--     writes, records it with the same payload; any other event may not remove, replace
--     or add to a UC of fonte 'ibge' or 'osm', nor claim those sources ('recusado');
--   - a polygon of any other event must not take the place of other UCs
--     (d2.replica_captura, 'recusado');
--   - a removal of a polygon, or a polygon taking a coarser UC's answers, by any other
--     event counts toward the breaker: past p_remocoes_max of them within p_janela_s
--     seconds (since the last resume) the replica stops before the event ('parado',
--     nothing written; the caller records the stop with d2.replica_parar) and stays
--     stopped, 'parado' for every event, until `d2 mirror resume`.
-- 'recusado' and 'parado' come with a one-line motivo; the caller rolls back (a dead
-- letter, or the cursor held).
-- The polygon's old and new ids go to d2.mirror_mudancas, as the capture trigger does for
-- core.uc_polygons: d2.mirror_aplicar takes them from there, through d2.uc_fonte.
-- SECURITY DEFINER: d2_worker feeds the replica only through here (no write grant on it).
CREATE OR REPLACE FUNCTION d2.replica_aplicar(
    p_event_id uuid, p_origens varchar[], p_remocoes_max integer, p_janela_s integer
)
RETURNS TABLE (desfecho text, motivo text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    importadas constant text[] := ARRAY['ibge', 'osm'];
    evento record;
    parada text;
    anterior_uc uuid;
    anterior_fonte text;
    registrado text;
    proprio boolean := false;
    poligono uuid;
    uc uuid;
    fonte_nova text;
    captura record;
    conta boolean := false;
    desde timestamptz;
    contadas bigint;
    resultado text;
BEGIN
    SELECT p.motivo INTO parada FROM d2.replica_paradas p WHERE p.retomada_em IS NULL;
    IF FOUND THEN
        RETURN QUERY SELECT 'parado'::text, parada;
        RETURN;
    END IF;

    SELECT e.tipo::text AS tipo, e.origem::text AS origem, e.payload INTO evento
    FROM core.event_log e WHERE e.event_id = p_event_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'event % is not in the log', p_event_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF evento.tipo NOT IN ('uc.poligono_adicionado', 'uc.poligono_atualizado',
                           'uc.poligono_removido') THEN
        RAISE EXCEPTION 'not a uc.poligono_* event: %', evento.tipo
            USING ERRCODE = 'invalid_parameter_value';
    END IF;

    SELECT r.desfecho INTO registrado FROM d2.replica_eventos r WHERE r.event_id = p_event_id;
    IF FOUND THEN
        RETURN QUERY SELECT CASE WHEN registrado = 'descartado' THEN 'descartado'
                                 ELSE 'repetido' END, NULL::text;
        RETURN;
    END IF;

    IF NOT (evento.origem = ANY (p_origens::text[])) THEN
        RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
            'origem %L may not publish %s (D2_REPLICA_ORIGENS: %s)',
            left(evento.origem, 40), evento.tipo,
            pg_catalog.array_to_string(p_origens::text[], ', '));
        RETURN;
    END IF;

    poligono := (evento.payload ->> 'uc_polygon_id')::uuid;
    uc := (evento.payload ->> 'unidade_civica_id')::uuid;
    IF poligono IS NULL THEN
        RAISE EXCEPTION 'uc_polygon_id missing' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT r.unidade_civica_id, r.fonte::text INTO anterior_uc, anterior_fonte
    FROM d2.replica_uc r WHERE r.id = poligono;

    SELECT l.hash INTO registrado FROM d2.poligonos_eventos l WHERE l.event_id = p_event_id;
    proprio := FOUND AND registrado = md5(evento.payload::text);

    IF NOT proprio THEN
        IF evento.tipo = 'uc.poligono_removido' THEN
            IF anterior_fonte = ANY (importadas) THEN
                RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                    'uc.poligono_removido of a polygon of fonte %L not published by D-2''s'
                    ' importers', anterior_fonte);
                RETURN;
            END IF;
            conta := anterior_uc IS NOT NULL;
        ELSE
            fonte_nova := left(evento.payload ->> 'fonte', 50);
            IF anterior_fonte = ANY (importadas) OR fonte_nova = ANY (importadas)
               OR EXISTS (SELECT 1 FROM d2.replica_uc r
                          WHERE r.unidade_civica_id = uc AND r.id <> poligono
                            AND r.fonte::text = ANY (importadas)) THEN
                RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                    '%s of fonte %L for a UC of fonte %L: only D-2''s importers publish'
                    ' those sources', evento.tipo, fonte_nova,
                    coalesce(anterior_fonte, (SELECT r.fonte::text FROM d2.replica_uc r
                                              WHERE r.unidade_civica_id = uc
                                                AND r.fonte::text = ANY (importadas)
                                              LIMIT 1),
                             fonte_nova));
                RETURN;
            END IF;
            SELECT c.recusa, c.toma INTO captura
            FROM d2.replica_captura(evento.payload -> 'geometria',
                                    (evento.payload ->> 'nivel')::integer, uc, poligono,
                                    (evento.payload ->> 'parent_uc_id')::uuid) c;
            IF captura.recusa IS NOT NULL THEN
                RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                    '%s refused: %s', evento.tipo, captura.recusa);
                RETURN;
            END IF;
            conta := captura.toma;
        END IF;
    END IF;

    IF conta THEN
        desde := greatest(
            clock_timestamp() - make_interval(secs => p_janela_s::double precision),
            (SELECT max(p.retomada_em) FROM d2.replica_paradas p));
        SELECT count(*) INTO contadas
        FROM d2.replica_eventos r
        WHERE r.disjuntor AND r.aplicado_em > desde;
        IF contadas >= p_remocoes_max THEN
            RETURN QUERY SELECT 'parado'::text, pg_catalog.format(
                '%s polygons removed or taken within %s s by producers other than D-2''s'
                ' importers (D2_REPLICA_BREAKER_MAX %s): the replica stops before event %s'
                ' until d2 mirror resume', contadas, p_janela_s, p_remocoes_max, p_event_id);
            RETURN;
        END IF;
    END IF;

    IF evento.tipo IN ('uc.poligono_adicionado', 'uc.poligono_atualizado') THEN
        INSERT INTO d2.replica_uc AS r
            (id, unidade_civica_id, nivel, nome, geometria, parent_uc_id, fonte, event_id)
        VALUES (poligono, uc, (evento.payload ->> 'nivel')::integer,
                left(evento.payload ->> 'nome', 255), evento.payload -> 'geometria',
                (evento.payload ->> 'parent_uc_id')::uuid, left(evento.payload ->> 'fonte', 50),
                p_event_id)
        ON CONFLICT (id) DO UPDATE
        SET unidade_civica_id = EXCLUDED.unidade_civica_id, nivel = EXCLUDED.nivel,
            nome = EXCLUDED.nome, geometria = EXCLUDED.geometria,
            parent_uc_id = EXCLUDED.parent_uc_id, fonte = EXCLUDED.fonte,
            event_id = EXCLUDED.event_id, atualizado_em = clock_timestamp();
        resultado := 'aplicado';
    ELSE
        DELETE FROM d2.replica_uc r WHERE r.id = poligono;
        resultado := CASE WHEN FOUND THEN 'removido' ELSE 'ausente' END;
    END IF;

    IF resultado <> 'ausente' THEN
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT poligono, u.uc
        FROM (VALUES (uc), (anterior_uc)) u (uc)
        WHERE u.uc IS NOT NULL;
    END IF;
    INSERT INTO d2.replica_eventos (event_id, tipo, uc_polygon_id, desfecho, disjuntor)
    VALUES (p_event_id, evento.tipo, poligono, resultado, conta);
    RETURN QUERY SELECT resultado, NULL::text;
END
$$;
