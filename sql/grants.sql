-- Every privilege D-2 sets, in one place, re-applied at the end of every upgrade to head
-- (alembic/env.py), so that functions added or replaced by any migration are covered.
-- Idempotent. Runs as the migrating role, in the migrations' transaction.
--
-- 1. search_path: every SECURITY DEFINER function of D-2, and every trigger function of
--    D-2 (they run inside definer functions or as the writer of core.uc_polygons), runs
--    with pg_catalog first, then only the schemas of the extensions D-2 calls (postgis,
--    unaccent), then pg_temp last (never first, where anyone may create objects). The
--    SET clauses in sql/functions/*.sql are overridden here; this is the one truth.
--    The migrations refuse to run where one of those schemas is writable by a role other
--    than its owner (d2/migrations.py, query schemas_writable_by_others).
-- 2. EXECUTE: nobody by default (PostgreSQL grants it to PUBLIC); d2_worker gets the
--    functions it calls. Trigger functions need no grant: EXECUTE on them is checked
--    when the trigger is created, not when it fires.
-- 3. Tables: what d2_worker reads and writes (docs/reliability.md, section 1).
-- 4. d2_operador: the review queue, read, and closed through two definer functions.
--
-- D-2's own functions in core are listed by name: core belongs to the monolith, whose
-- functions may be owned by the same role and are not D-2's to change.
DO $$
DECLARE
    caminho text;
    funcao regprocedure;
BEGIN
    SELECT 'pg_catalog, '
           || coalesce(string_agg(DISTINCT quote_ident(n.nspname), ', '), 'public')
           || ', pg_temp'
    INTO caminho
    FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname IN ('postgis', 'unaccent')
      AND n.nspname <> 'pg_catalog';

    FOR funcao IN
        SELECT p.oid::regprocedure
        FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE p.proowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
          AND p.prokind = 'f'
          AND (p.prosecdef OR p.prorettype = 'trigger'::regtype)
          AND (n.nspname = 'd2'
               OR (n.nspname = 'core'
                   AND p.proname IN ('event_log_numerar', 'event_log_proteger_sequencia',
                                     'event_log_inserir_numerados', 'uc_polygons_nome_busca')))
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s', funcao, caminho);
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', funcao);
    END LOOP;

    FOR funcao IN
        SELECT to_regprocedure(f)
        FROM unnest(ARRAY[
            'core.event_log_inserir_numerados(varchar, varchar, varchar, jsonb)'
        ]) f
        WHERE to_regprocedure(f) IS NOT NULL
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', funcao);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO d2_worker', funcao);
    END LOOP;
END
$$;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA d2 FROM PUBLIC;
-- Functions this role creates in d2 later start without it, too.
ALTER DEFAULT PRIVILEGES IN SCHEMA d2 REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

GRANT EXECUTE
    ON FUNCTION d2.resolver_territorio(double precision, double precision),
                d2.mirror_aviso(),
                d2.resolver_territorios(double precision[], double precision[]),
                -- The near rule, for the points the resolver leaves in no polygon.
                d2.distancia_m(geometry, double precision, double precision),
                d2.resolver_proximo(double precision, double precision, double precision,
                                    double precision),
                d2.resolver_proximos(double precision[], double precision[],
                                     double precision, double precision),
                d2.cadeia_ucs(uuid),
                d2.arredondar_coordenada(double precision),
                d2.faixas_por_grau(),
                d2.lideranca_tentar(),
                d2.consumer_posicao(varchar),
                d2.regeo_comparar(uuid[]),
                d2.candidatos_territorio(integer[], integer[], text[]),
                d2.lugares_lidos(integer[], text[], integer[], integer[], integer[], integer[],
                                 bpchar[], integer[], text[], integer[], uuid[], text[]),
                d2.ceps_lidos(bpchar[]),
                d2.nome_busca(text),
                -- SECURITY DEFINER: the worker applies what writers of core.uc_polygons
                -- recorded (d2/territorio/mirror.py); it may not write the mirror itself.
                d2.mirror_aplicar(),
                d2.mirror_faixas_construir(),
                -- SECURITY DEFINER, given only an event id: count an attempt, evaluate
                -- (every geometry step, before any transaction id), then the worker's only
                -- way to add a UC to core.uc_polygons, as the evaluation decided.
                d2.territorio_tentar(uuid),
                d2.territorio_avaliar(uuid),
                d2.territorio_submeter(uuid, integer),
                -- The log, for D-2's types only (below): the views' own condition, and
                -- the SECURITY DEFINER reads in (transacao, sequence_number) order.
                d2.eventos_tipos_lidos(),
                d2.eventos_tipos_publicados(),
                d2.eventos_ler(varchar[], xid8, bigint, integer, bigint, bigint),
                d2.eventos_cerca(varchar),
                d2.eventos_apos(varchar, xid8, bigint),
                d2.eventos_ultimo_visivel(varchar),
                -- The event-synced replica: the mirror's source, the one way the
                -- worker writes the replica, and the stop of its breaker (SECURITY
                -- DEFINER).
                d2.mirror_fonte(),
                d2.replica_aplicar(uuid),
                d2.replica_parar(uuid)
    TO d2_worker;

GRANT USAGE ON SCHEMA core, d2 TO d2_worker;
GRANT SELECT ON core.uc_polygons TO d2_worker;
-- The event log and the dead letters are shared by every colony: d2_worker holds nothing
-- on them (earlier revisions granted it SELECT, INSERT and UPDATE; taken back here) and
-- sees D-2's rows only, through views in d2 (sql/views/eventos*.sql, dead_letters.sql).
REVOKE ALL ON core.event_log, core.dead_letter_queue FROM d2_worker;
GRANT SELECT ON d2.eventos TO d2_worker;
-- INSERT of the event's own columns only: sequence_number, transacao and publicado_em
-- take the table's defaults, so the worker cannot place an event behind the cursors.
REVOKE ALL ON d2.eventos_publicar FROM d2_worker;
GRANT INSERT (event_id, tipo, versao_schema, origem, correlacao_id, payload)
    ON d2.eventos_publicar TO d2_worker;
GRANT SELECT, INSERT, UPDATE ON d2.dead_letters TO d2_worker;
-- The sequence behind sequence_number's default (the monolith's serial, or the one D-2
-- made where it created the log): an INSERT through a view evaluates the table's
-- defaults as the inserting role, so publishing needs USAGE on it.
DO $$
DECLARE
    serial text := pg_catalog.pg_get_serial_sequence('core.event_log', 'sequence_number');
BEGIN
    IF serial IS NOT NULL THEN
        EXECUTE pg_catalog.format('GRANT USAGE ON SEQUENCE %s TO d2_worker', serial);
    END IF;
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE
    ON d2.resolucoes_geo, d2.eventos_processados, d2.revisoes_geo_pendentes,
       d2.consumer_offset, d2.consumer_offset_transacao
    TO d2_worker;
GRANT SELECT
    ON d2.mirror_uc, d2.mirror_pieces, d2.mirror_state, d2.mirror_cadeias, d2.mirror_faixas
    TO d2_worker;
-- The leadership lock (LOCK TABLE ... IN EXCLUSIVE MODE needs UPDATE): only workers.
GRANT UPDATE ON d2.worker_lideranca TO d2_worker;
-- The appliers' lock of the mirror (d2/territorio/mirror.py), for the same reason: only
-- workers (and the owner) may take it. The interval builder's lock,
-- d2.mirror_faixas_construtor, is granted to nobody: the owner's functions take it.
GRANT UPDATE ON d2.mirror_aplicador TO d2_worker;
-- Not granted, on purpose: pg_read_all_stats. The worker names the session holding the
-- event log's fence or the mirror's lock from what every role may read of every
-- session in pg_stat_activity (pid, role, database, application, transaction id) and
-- from pg_locks; pg_read_all_stats would add every session's query text, other
-- colonies' personal data included (docs/reliability.md, section 3).
-- The change capture's table: how many changes wait (the worker's poll).
GRANT SELECT ON d2.mirror_mudancas TO d2_worker;
-- Address demands waiting for the geocoder, and what Nominatim holds.
GRANT SELECT, INSERT, UPDATE, DELETE ON d2.geocodificacoes_pendentes TO d2_worker;
GRANT SELECT ON d2.nominatim_importacoes TO d2_worker;
-- The address ladder: the CEPs it reads, what it understood (written with the
-- terminal state; the view for reading it back).
GRANT SELECT ON d2.ceps, d2.cep_localidades TO d2_worker;
-- The names of d2.ceps per município the ladder reads a text against.
GRANT SELECT ON d2.cep_nomes TO d2_worker;
GRANT SELECT, INSERT ON d2.geocodificacoes TO d2_worker;
GRANT SELECT ON d2.v_geocodificacoes TO d2_worker;
-- Citizen drawings: read back what d2.territorio_submeter decided, to publish it.
GRANT SELECT ON d2.territorio_submissoes, d2.territorio_ucs TO d2_worker;
-- The re-georeferencing follow-up (d2/ops/regeo.py). UPDATE on the queues only because taking
-- a chunk locks it (FOR UPDATE SKIP LOCKED); the history is written, never read back.
GRANT SELECT, INSERT, DELETE ON d2.regeo_areas TO d2_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON d2.regeo_fila, d2.regeo_fila_revisoes TO d2_worker;
GRANT INSERT ON d2.resolucoes_geo_historico TO d2_worker;
-- The event-synced replica (d2/territorio/replica.py): read back its outcomes; the polygons the
-- mirror functions read (d2.cadeia_ucs runs as the worker).
GRANT SELECT ON d2.replica_uc, d2.replica_eventos, d2.uc_fonte TO d2_worker;
-- Whether the replica's breaker holds it (the worker skips the drain meanwhile). The
-- importers' record of their events (d2.poligonos_eventos) and the replica's limits
-- (d2.replica_limites) stay the owner's alone.
GRANT SELECT ON d2.replica_paradas TO d2_worker;
-- Demands in conflict: the handler records the events, and reads which
-- demands are undecided to hold their publications; deciding is the owner's
-- (`d2 conflicts aceitar`).
GRANT SELECT, INSERT ON d2.conflitos_demanda TO d2_worker;
-- Reviews closed without a polygon (d2.revisoes_tratadas): the worker records the near
-- rule's answers with their resolution, and counts them for its metrics.
GRANT SELECT, INSERT ON d2.revisoes_tratadas TO d2_worker;

-- The review operator (docs/reliability.md, section 1): reads the queue (the nearest
-- unit as a hint: the mirror and the names of core.uc_polygons; how many changes wait
-- for the mirror, as every command asks first) and closes a review only through
-- d2.revisao_atribuir and d2.revisao_descartar (SECURITY DEFINER), which write the
-- resolution, the record and the publication themselves. No write on any table, no
-- event log, no worker function.
GRANT USAGE ON SCHEMA core, d2 TO d2_operador;
GRANT SELECT ON core.uc_polygons TO d2_operador;
GRANT SELECT
    ON d2.v_revisoes_pendentes, d2.v_revisoes_tratadas, d2.mirror_uc, d2.mirror_mudancas
    TO d2_operador;
GRANT EXECUTE
    ON FUNCTION d2.revisao_atribuir(uuid, uuid, text, text),
                d2.revisao_descartar(uuid, text, text)
    TO d2_operador;
