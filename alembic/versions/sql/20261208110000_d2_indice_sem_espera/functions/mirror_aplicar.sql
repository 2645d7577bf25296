-- Brings the mirror (d2.mirror_uc, d2.mirror_pieces, d2.mirror_rejected) and the chains
-- (d2.mirror_cadeias) up to date with every change recorded in d2.mirror_mudancas (by
-- d2.uc_polygons_capturar for core.uc_polygons, by d2.replica_aplicar for the replica)
-- that this transaction sees, reading the polygons from d2.uc_fonte; drops the clean intervals
-- (d2.mirror_faixas) of the bands it touched, then moves the mirror version; returns how many change rows it consumed, how
-- many polygons it synced and the version now. With nothing recorded it writes nothing
-- and the version stays.
--
-- Consistency: the change rows say which polygons to look at, the polygons are read as
-- they are now. Under REPEATABLE READ both come from one snapshot, so one call applies
-- exactly the transactions committed before that snapshot, whole; a transaction that
-- commits later keeps its rows for the next call. Under READ COMMITTED each statement
-- would see a newer state, and a polygon read after another writer's commit could sit
-- beside its neighbour from before it: refused. The resolver sees the old mirror until
-- this transaction commits, then the new one: never half of a change.
-- One applier at a time: an EXCLUSIVE lock on d2.mirror_aplicador (sql/tables), which
-- d2/territorio/mirror.py takes as the transaction's first statement, before the
-- snapshot, so two appliers never see each other's rows as new; taken here again (a
-- no-op then) for a caller that did not.
-- SECURITY DEFINER so that the worker's role (d2_worker, EXECUTE granted) applies the
-- recorded changes without any right to write the mirror itself; EXECUTE revoked from
-- PUBLIC; search_path pinned and every object schema-qualified.
CREATE OR REPLACE FUNCTION d2.mirror_aplicar()
RETURNS TABLE (mudancas bigint, poligonos bigint, versao bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- ST_Subdivide's row estimates make the plan look expensive enough to JIT-compile.
SET jit = off
AS $$
DECLARE
    consumidas bigint;
    ids uuid[];
    ucs uuid[];
    tudo boolean;
    sincronizados bigint;
    espera text;
BEGIN
    IF current_setting('transaction_isolation') NOT IN ('repeatable read', 'serializable') THEN
        RAISE EXCEPTION 'd2.mirror_aplicar() needs REPEATABLE READ (use `d2 mirror sync`)'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    LOCK TABLE d2.mirror_aplicador IN EXCLUSIVE MODE;

    WITH lidas AS (
        DELETE FROM d2.mirror_mudancas m
        RETURNING m.uc_polygon_id, m.unidade_civica_id
    )
    SELECT count(*),
           pg_catalog.array_agg(DISTINCT l.uc_polygon_id) FILTER (WHERE l.uc_polygon_id IS NOT NULL),
           pg_catalog.array_agg(DISTINCT l.unidade_civica_id) FILTER (WHERE l.unidade_civica_id IS NOT NULL),
           coalesce(bool_or(l.uc_polygon_id IS NULL), false)
    INTO consumidas, ids, ucs, tudo
    FROM lidas l;

    IF consumidas = 0 THEN
        RETURN QUERY SELECT 0::bigint, 0::bigint, s.versao FROM d2.mirror_state s;
        RETURN;
    END IF;

    IF tudo THEN
        -- A TRUNCATE of core.uc_polygons (with or without writes after it): every
        -- polygon mirrored or there. Row by row rather than TRUNCATE, whose lock would
        -- stop the resolver's readers until this transaction ends.
        ids := ARRAY(
            SELECT u.id FROM d2.uc_fonte u
            UNION SELECT m.uc_polygon_id FROM d2.mirror_uc m
            UNION SELECT r.uc_polygon_id FROM d2.mirror_rejected r
        );
        PERFORM d2.mirror_sync(i.id) FROM pg_catalog.unnest(ids) i (id);
        PERFORM d2.mirror_cadeias_rebuild();
    ELSE
        ids := coalesce(ids, ARRAY[]::uuid[]);
        PERFORM d2.mirror_sync(i.id) FROM pg_catalog.unnest(ids) i (id);
        -- The UCs whose own link changed: they appeared, went, or their parent (from their
        -- smallest-id row) differs from the one their stored chain was built with, which
        -- is its second element, or ultimo_pai when the chain stops at the UC itself. A
        -- geometry-only change (a re-import) rewrites no chain.
        ucs := ARRAY(
            SELECT m.uc
            FROM pg_catalog.unnest(ucs) m (uc)
            LEFT JOIN d2.mirror_cadeias c ON c.unidade_civica_id = m.uc
            LEFT JOIN LATERAL (
                SELECT true AS existe, u.parent_uc_id
                FROM d2.uc_fonte u
                WHERE u.unidade_civica_id = m.uc
                ORDER BY u.id
                LIMIT 1
            ) agora ON true
            WHERE (c.unidade_civica_id IS NOT NULL) IS DISTINCT FROM coalesce(agora.existe, false)
               OR coalesce(c.cadeia_ucs[2], c.ultimo_pai) IS DISTINCT FROM agora.parent_uc_id
        );
        -- The chains that can change: the changed UCs', every chain through one of them,
        -- and every chain that stopped at one of them (a missing parent, a cycle).
        PERFORM d2.mirror_cadeias_atualizar(ARRAY(
            SELECT m.uc FROM pg_catalog.unnest(ucs) m (uc)
            UNION
            SELECT c.unidade_civica_id
            FROM d2.mirror_cadeias c
            CROSS JOIN LATERAL pg_catalog.unnest(c.cadeia_ucs) e (uc)
            WHERE e.uc IN (SELECT pg_catalog.unnest(ucs))
            UNION
            SELECT c.unidade_civica_id
            FROM d2.mirror_cadeias c
            WHERE c.ultimo_pai IN (SELECT pg_catalog.unnest(ucs))
        ));
    END IF;
    -- The clean intervals of the bands this touched are gone (their rows' trigger); they
    -- are built again after the commit (d2.mirror_faixas_construir, d2/mirror.py): a
    -- missing interval only sends its points to the GIST tiers, so the new polygons are
    -- in force without waiting for that build.

    -- The resolver's index after many inserts (an import, a re-import) is built again,
    -- as its CREATE left it (sql/tables/mirror_pieces.sql). Last, because REINDEX holds
    -- the index against every reader until this transaction ends (~0.3 s for Brazil).
    -- Never behind a reader: REINDEX waits for every session holding the index (any
    -- SELECT of d2.mirror_pieces took it, and an idle transaction keeps it), and every
    -- resolver query would queue behind that wait. So it runs only when no other session
    -- holds a lock on the index, and gives up after a few milliseconds should one arrive
    -- meanwhile: the rebuild stays due (sincronizados_desde_indice kept) for a later
    -- apply, and the changes are applied all the same (d2/territorio/mirror.py names the
    -- sessions in its way).
    UPDATE d2.mirror_state s
    SET sincronizados_desde_indice = s.sincronizados_desde_indice
                                     + pg_catalog.cardinality(ids)
    RETURNING s.sincronizados_desde_indice INTO sincronizados;
    IF sincronizados * 10 >= (SELECT count(*) FROM d2.mirror_uc)
       AND NOT EXISTS (
           SELECT 1 FROM pg_catalog.pg_locks l
           WHERE l.locktype = 'relation' AND l.pid <> pg_catalog.pg_backend_pid()
             AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                               WHERE d.datname = pg_catalog.current_database())
             AND l.relation = 'd2.mirror_pieces_geom_mun_sub_idx'::pg_catalog.regclass
       ) THEN
        espera := pg_catalog.current_setting('lock_timeout');
        BEGIN
            PERFORM pg_catalog.set_config('lock_timeout', '20ms', true);
            REINDEX INDEX d2.mirror_pieces_geom_mun_sub_idx;
            UPDATE d2.mirror_state SET sincronizados_desde_indice = 0;
        EXCEPTION WHEN lock_not_available THEN
            NULL;  -- a reader came first: the rebuild stays due
        END;
        PERFORM pg_catalog.set_config('lock_timeout', espera, true);
    END IF;

    RETURN QUERY
        UPDATE d2.mirror_state s
        SET versao = s.versao + 1, alterado_em = clock_timestamp()
        RETURNING consumidas, pg_catalog.cardinality(ids)::bigint, s.versao;
END
$$;
