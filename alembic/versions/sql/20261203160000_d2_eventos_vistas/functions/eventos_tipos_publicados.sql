-- The event types D-2 publishes: the only ones d2_worker may insert into core.event_log,
-- through d2.eventos_publicar (WITH CHECK OPTION).
CREATE OR REPLACE FUNCTION d2.eventos_tipos_publicados()
RETURNS varchar[]
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY['demanda.georreferenciada', 'uc.poligono_adicionado',
                 'uc.poligono_atualizado', 'uc.poligono_removido',
                 'uc.moderacao_solicitada']::varchar[]
$$;
