-- Publishes what changed in core.uc_polygons since the last call as uc.poligono_* events
-- (spec Phase 2: replicas synced by events): uc.poligono_adicionado for a row never
-- published, uc.poligono_atualizado for one whose state (level, name, geometry, parent,
-- source, UC) differs from what was last published, uc.poligono_removido for a published
-- row no longer there. d2.poligonos_publicados remembers the md5 of each row's published
-- state, so a second call publishes nothing: idempotent per row version. The importers
-- call it in their transaction, after their writes (the events commit with the change);
-- `d2 mirror publicar-estado` calls it for a log that predates them.
-- Rows the Registry would refuse (a geometry that is not a GeoJSON Polygon or
-- MultiPolygon object, a level outside 1-7) are not published; they are counted.
-- Their motivo is 'importacao' (the Registry's name for a change made by a writer of
-- core.uc_polygons, beside the community's 'consenso' and 'moderacao').
-- Runs as its caller (the importers and the CLI run as the owner): it inserts through
-- d2.eventos_publicar, whose check admits only D-2's output types, and records each event
-- it publishes, with the md5 of its payload, in d2.poligonos_eventos: how the replica
-- tells the importers' events from anyone's (d2.replica_aplicar), whatever their origem.
CREATE OR REPLACE FUNCTION d2.poligonos_publicar_estado(p_origem varchar)
RETURNS TABLE (adicionados bigint, atualizados bigint, removidos bigint, recusados bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_adicionados bigint;
    n_atualizados bigint;
    n_removidos bigint;
    n_recusados bigint;
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS pg_temp.d2_estado (
        id uuid PRIMARY KEY, tipo varchar, hash text, payload jsonb,
        event_id uuid NOT NULL DEFAULT gen_random_uuid()
    ) ON COMMIT DROP;
    TRUNCATE pg_temp.d2_estado;

    WITH atual AS (
        SELECT u.id, u.unidade_civica_id, u.nivel, u.nome, u.parent_uc_id, u.fonte,
               u.geometria,
               md5(concat_ws('|', u.unidade_civica_id, u.nivel, u.nome, u.parent_uc_id,
                             u.fonte, u.geometria::text)) AS hash
        FROM core.uc_polygons u
        WHERE jsonb_typeof(u.geometria) = 'object'
          AND u.geometria ->> 'type' IN ('Polygon', 'MultiPolygon')
          AND u.nivel BETWEEN 1 AND 7
    )
    INSERT INTO pg_temp.d2_estado (id, tipo, hash, payload)
    SELECT a.id,
           CASE WHEN p.uc_polygon_id IS NULL THEN 'uc.poligono_adicionado'
                ELSE 'uc.poligono_atualizado' END,
           a.hash,
           jsonb_build_object(
               'unidade_civica_id', a.unidade_civica_id, 'uc_polygon_id', a.id,
               'nivel', a.nivel, 'nome', left(a.nome, 255), 'parent_uc_id', a.parent_uc_id,
               'fonte', left(a.fonte, 50), 'geometria', a.geometria)
           || CASE WHEN p.uc_polygon_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('motivo', 'importacao') END
    FROM atual a
    LEFT JOIN d2.poligonos_publicados p ON p.uc_polygon_id = a.id
    WHERE p.hash IS DISTINCT FROM a.hash;

    INSERT INTO pg_temp.d2_estado (id, tipo, hash, payload)
    SELECT p.uc_polygon_id, 'uc.poligono_removido', NULL,
           jsonb_build_object('unidade_civica_id', p.unidade_civica_id,
                              'uc_polygon_id', p.uc_polygon_id, 'nivel', p.nivel,
                              'motivo', 'importacao')
    FROM d2.poligonos_publicados p
    WHERE NOT EXISTS (SELECT 1 FROM core.uc_polygons u WHERE u.id = p.uc_polygon_id);

    INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, payload)
    SELECT e.event_id, e.tipo, '1.0.0', p_origem, e.payload
    FROM pg_temp.d2_estado e
    ORDER BY e.tipo = 'uc.poligono_removido', e.id;
    INSERT INTO d2.poligonos_eventos (event_id, uc_polygon_id, hash)
    SELECT e.event_id, e.id, md5(e.payload::text)
    FROM pg_temp.d2_estado e;

    INSERT INTO d2.poligonos_publicados AS p (uc_polygon_id, unidade_civica_id, nivel, hash)
    SELECT e.id, (e.payload ->> 'unidade_civica_id')::uuid, (e.payload ->> 'nivel')::integer,
           e.hash
    FROM pg_temp.d2_estado e
    WHERE e.tipo <> 'uc.poligono_removido'
    ON CONFLICT (uc_polygon_id) DO UPDATE
    SET unidade_civica_id = EXCLUDED.unidade_civica_id, nivel = EXCLUDED.nivel,
        hash = EXCLUDED.hash;
    DELETE FROM d2.poligonos_publicados p
    USING pg_temp.d2_estado e
    WHERE e.tipo = 'uc.poligono_removido' AND p.uc_polygon_id = e.id;

    SELECT count(*) FILTER (WHERE e.tipo = 'uc.poligono_adicionado'),
           count(*) FILTER (WHERE e.tipo = 'uc.poligono_atualizado'),
           count(*) FILTER (WHERE e.tipo = 'uc.poligono_removido')
    INTO n_adicionados, n_atualizados, n_removidos
    FROM pg_temp.d2_estado e;
    SELECT count(*) INTO n_recusados
    FROM core.uc_polygons u
    WHERE NOT (jsonb_typeof(u.geometria) = 'object'
               AND u.geometria ->> 'type' IN ('Polygon', 'MultiPolygon')
               AND u.nivel BETWEEN 1 AND 7);
    DROP TABLE pg_temp.d2_estado;
    RETURN QUERY SELECT n_adicionados, n_atualizados, n_removidos, n_recusados;
END
$$;
