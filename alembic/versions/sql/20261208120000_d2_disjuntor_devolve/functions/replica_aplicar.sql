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
-- What authenticates a change (docs/reliability.md, "What authenticates a territorial
-- change"): any producer can write core.event_log and declare any origem, fonte or
-- parent, so these are claims. An event is D-2's importers' only when
-- d2.poligonos_eventos, which only the owner writes, records it with the same payload;
-- only those write official polygons (d2.replica_uc.oficial: their fonte is not
-- 'comunitario'). Every other event is a proposal:
--   - the origem must be in d2.replica_limites.origens, else 'recusado';
--   - it may not remove or replace an official polygon, nor add one to an official UC;
--   - its polygon ranks as community (fonte 'comunitario', whatever it claims) and is
--     judged by what it would take (d2.replica_proposta: a drawing's levels and bounds,
--     a parent of the mirror holding it, the share of other UCs' areas and the stored
--     answers it would take); refused: 'recusado';
--   - a proposal that takes anything counts toward the breaker, and so does a removal,
--     giving back what the polygon's writing took: a removal of a polygon proposals
--     wrote without taking anything counts for nothing (else a producer's own tiny
--     polygons and their removals would trip the breaker at will); one the importers
--     wrote counts once, with no answer. Past d2.replica_limites.disjuntor_max of them,
--     or past respostas_janela_max answers taken, within disjuntor_janela_s seconds
--     (since the last resume), the replica stops before the event ('parado', nothing
--     written; d2.replica_parar records the stop) and stays stopped for proposals,
--     'parado' for each, until `d2 mirror resume`; the importers' events still apply
--     meanwhile (the caller reads past the held event without moving its cursor, and
--     this function records in the stop how far it has been asked: vista_*);
--   - a proposal that a later event already overwrote (the importers' events applied
--     while it was held) is 'superado': nothing written, the later state stays.
-- The limits come from d2.replica_limites, which only the owner writes: the caller
-- passes none. 'recusado' and 'parado' come with a one-line motivo; the caller rolls
-- back (a dead letter, or the cursor held). 'pendente': a proposal met changes the
-- mirror has not applied yet, nothing written; the caller applies them and tries again.
-- Names are stored cleaned (d2.nome_limpo).
-- The polygon's old and new ids go to d2.mirror_mudancas, as the capture trigger does for
-- core.uc_polygons: d2.mirror_aplicar takes them from there, through d2.uc_fonte.
-- SECURITY DEFINER: d2_worker feeds the replica only through here (no write grant on it).
CREATE OR REPLACE FUNCTION d2.replica_aplicar(p_event_id uuid)
RETURNS TABLE (desfecho text, motivo text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim d2.replica_limites%ROWTYPE;
    evento record;
    parada text;
    parada_id bigint;
    anterior_uc uuid;
    anterior_oficial boolean;
    registrado text;
    proprio boolean := false;
    poligono uuid;
    uc uuid;
    fonte_nova text;
    julgada record;
    conta boolean := false;
    tomadas integer := 0;
    desde timestamptz;
    contadas bigint;
    tomadas_janela bigint;
    resultado text;
BEGIN
    SELECT p.id, p.motivo INTO parada_id, parada
    FROM d2.replica_paradas p WHERE p.retomada_em IS NULL;

    SELECT e.tipo::text AS tipo, e.origem::text AS origem, e.payload,
           coalesce(e.transacao, '0'::xid8) AS transacao, e.sequence_number
    INTO evento
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
    IF parada_id IS NOT NULL THEN
        -- Read past the held event while stopped: the next pass starts after this one.
        UPDATE d2.replica_paradas p
        SET vista_transacao = evento.transacao, vista_sequencia = evento.sequence_number
        WHERE p.id = parada_id
          AND (p.vista_transacao IS NULL OR (p.vista_transacao, p.vista_sequencia)
                                            < (evento.transacao, evento.sequence_number));
    END IF;

    SELECT r.desfecho INTO registrado FROM d2.replica_eventos r WHERE r.event_id = p_event_id;
    IF FOUND THEN
        RETURN QUERY SELECT CASE WHEN registrado = 'descartado' THEN 'descartado'
                                 ELSE 'repetido' END, NULL::text;
        RETURN;
    END IF;

    SELECT * INTO lim FROM d2.replica_limites;
    IF NOT (evento.origem = ANY (lim.origens::text[])) THEN
        RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
            'origem %L may not publish %s (d2.replica_limites.origens: %s)',
            left(d2.nome_limpo(evento.origem), 40), evento.tipo,
            pg_catalog.array_to_string(lim.origens::text[], ', '));
        RETURN;
    END IF;

    poligono := (evento.payload ->> 'uc_polygon_id')::uuid;
    uc := (evento.payload ->> 'unidade_civica_id')::uuid;
    IF poligono IS NULL THEN
        RAISE EXCEPTION 'uc_polygon_id missing' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT r.unidade_civica_id, r.oficial INTO anterior_uc, anterior_oficial
    FROM d2.replica_uc r WHERE r.id = poligono;

    SELECT l.hash INTO registrado FROM d2.poligonos_eventos l WHERE l.event_id = p_event_id;
    proprio := FOUND AND registrado = md5(evento.payload::text);

    IF parada_id IS NOT NULL AND NOT proprio THEN
        RETURN QUERY SELECT 'parado'::text, parada;
        RETURN;
    END IF;

    IF NOT proprio THEN
        IF EXISTS (
            SELECT 1
            FROM d2.replica_eventos r
            JOIN core.event_log e ON e.event_id = r.event_id
            WHERE r.uc_polygon_id = poligono AND r.desfecho IN ('aplicado', 'removido')
              AND (coalesce(e.transacao, '0'::xid8), e.sequence_number)
                  > (evento.transacao, evento.sequence_number)
        ) THEN
            INSERT INTO d2.replica_eventos (event_id, tipo, uc_polygon_id, desfecho)
            VALUES (p_event_id, evento.tipo, poligono, 'superado');
            RETURN QUERY SELECT 'superado'::text, NULL::text;
            RETURN;
        END IF;
        IF anterior_oficial THEN
            RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                '%s of an official polygon not published by D-2''s importers', evento.tipo);
            RETURN;
        END IF;
        IF evento.tipo = 'uc.poligono_removido' THEN
            -- It gives back what the events that wrote the polygon since it last went
            -- took: counted when one of them counted (with their answers) or was the
            -- importers', or when none is recorded.
            IF anterior_uc IS NOT NULL THEN
                SELECT count(*) = 0 OR bool_or(r.disjuntor OR r.proprio),
                       coalesce(sum(r.tomadas) FILTER (WHERE r.disjuntor), 0)
                INTO conta, tomadas
                FROM d2.replica_eventos r
                WHERE r.uc_polygon_id = poligono AND r.desfecho = 'aplicado'
                  AND r.aplicado_em > coalesce(
                      (SELECT max(x.aplicado_em) FROM d2.replica_eventos x
                       WHERE x.uc_polygon_id = poligono AND x.desfecho = 'removido'),
                      '-infinity'::timestamptz);
            END IF;
        ELSE
            IF EXISTS (SELECT 1 FROM d2.replica_uc r
                       WHERE r.unidade_civica_id = uc AND r.id <> poligono AND r.oficial) THEN
                RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                    '%s for an official UC not published by D-2''s importers', evento.tipo);
                RETURN;
            END IF;
            -- Judged against the territory as the events before it left it: a change
            -- the mirror has not applied yet (its parent, a neighbour published just
            -- before) would be missed. The caller applies the mirror and tries again.
            IF EXISTS (SELECT 1 FROM d2.mirror_mudancas) THEN
                RETURN QUERY SELECT 'pendente'::text,
                    'the mirror has changes to apply before a proposal is judged'::text;
                RETURN;
            END IF;
            SELECT j.recusa, j.toma, j.tomadas INTO julgada
            FROM d2.replica_proposta(evento.payload -> 'geometria',
                                     (evento.payload ->> 'nivel')::integer, uc, poligono,
                                     (evento.payload ->> 'parent_uc_id')::uuid, lim) j;
            IF julgada.recusa IS NOT NULL THEN
                RETURN QUERY SELECT 'recusado'::text, pg_catalog.format(
                    '%s refused: %s', evento.tipo, julgada.recusa);
                RETURN;
            END IF;
            conta := julgada.toma;
            tomadas := julgada.tomadas;
        END IF;
    END IF;

    IF conta THEN
        desde := greatest(
            clock_timestamp() - make_interval(secs => lim.disjuntor_janela_s::double precision),
            (SELECT max(p.retomada_em) FROM d2.replica_paradas p));
        SELECT count(*), coalesce(sum(r.tomadas), 0) INTO contadas, tomadas_janela
        FROM d2.replica_eventos r
        WHERE r.disjuntor AND r.aplicado_em > desde;
        IF contadas >= lim.disjuntor_max THEN
            RETURN QUERY SELECT 'parado'::text, pg_catalog.format(
                '%s polygons removed or taken within %s s by producers other than D-2''s'
                ' importers (d2.replica_limites.disjuntor_max %s): the replica stops before'
                ' event %s until d2 mirror resume', contadas, lim.disjuntor_janela_s,
                lim.disjuntor_max, p_event_id);
            RETURN;
        END IF;
        IF tomadas_janela + tomadas > lim.respostas_janela_max THEN
            RETURN QUERY SELECT 'parado'::text, pg_catalog.format(
                '%s stored answers taken within %s s by producers other than D-2''s importers,'
                ' %s more with this one (d2.replica_limites.respostas_janela_max %s): the'
                ' replica stops before event %s until d2 mirror resume', tomadas_janela,
                lim.disjuntor_janela_s, tomadas, lim.respostas_janela_max, p_event_id);
            RETURN;
        END IF;
    END IF;

    IF evento.tipo IN ('uc.poligono_adicionado', 'uc.poligono_atualizado') THEN
        -- A proposal ranks as community whatever fonte it claims.
        fonte_nova := CASE WHEN proprio THEN left(evento.payload ->> 'fonte', 50)
                           ELSE 'comunitario' END;
        INSERT INTO d2.replica_uc AS r
            (id, unidade_civica_id, nivel, nome, geometria, parent_uc_id, fonte, event_id,
             oficial)
        VALUES (poligono, uc, (evento.payload ->> 'nivel')::integer,
                nullif(d2.nome_limpo(evento.payload ->> 'nome'), ''),
                evento.payload -> 'geometria', (evento.payload ->> 'parent_uc_id')::uuid,
                fonte_nova, p_event_id, proprio AND fonte_nova IS DISTINCT FROM 'comunitario')
        ON CONFLICT (id) DO UPDATE
        SET unidade_civica_id = EXCLUDED.unidade_civica_id, nivel = EXCLUDED.nivel,
            nome = EXCLUDED.nome, geometria = EXCLUDED.geometria,
            parent_uc_id = EXCLUDED.parent_uc_id, fonte = EXCLUDED.fonte,
            event_id = EXCLUDED.event_id, oficial = EXCLUDED.oficial,
            atualizado_em = clock_timestamp();
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
    INSERT INTO d2.replica_eventos
        (event_id, tipo, uc_polygon_id, desfecho, disjuntor, tomadas, proprio)
    VALUES (p_event_id, evento.tipo, poligono, resultado, conta, tomadas, proprio);
    RETURN QUERY SELECT resultado, NULL::text;
END
$$;
