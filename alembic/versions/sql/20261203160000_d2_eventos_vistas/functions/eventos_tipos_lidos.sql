-- The event types d2_worker may read from core.event_log: what D-2 consumes, and what it
-- publishes (the event-synced replica reads uc.poligono_*; status and re-georeferencing
-- read back D-2's own outputs). Every way the worker reads the log (d2.eventos and the
-- d2.eventos_* functions) is bounded by this list, so another domain's payloads, personal
-- data of other colonies, stay out of its reach.
CREATE OR REPLACE FUNCTION d2.eventos_tipos_lidos()
RETURNS varchar[]
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY['demanda.normalizada', 'lugar.cadastrado']::varchar[]
           || d2.eventos_tipos_publicados()
$$;
