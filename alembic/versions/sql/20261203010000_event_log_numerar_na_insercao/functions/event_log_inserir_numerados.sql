-- Many events of one type, numbered as they are inserted instead of at commit, from a
-- JSON array of {event_id, correlacao_id, payload}; numbers follow the array's order.
--
-- For a publisher whose commit follows at once (the D-2 worker publishes last in its
-- transaction): numbering at insert writes each row once, where numbering at commit
-- inserts it and then updates it (a second heap tuple and a second entry in every
-- index). The price is the numbering lock (see core.event_log_proteger_sequencia),
-- taken here and held until the caller's transaction ends: other producers' commits wait
-- for it meanwhile, so nothing slow may follow this call in the transaction.
--
-- One NOTIFY with the highest number, like core.event_log_numerar. Returns that number.
CREATE OR REPLACE FUNCTION core.event_log_inserir_numerados(
    p_tipo varchar, p_versao_schema varchar, p_origem varchar, p_itens jsonb
)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    maior bigint;
BEGIN
    PERFORM set_config('d2.numerar_na_insercao', 'on', true);
    WITH inseridos AS (
        INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
        SELECT (item.valor ->> 'event_id')::uuid, p_tipo, p_versao_schema, p_origem,
               (item.valor ->> 'correlacao_id')::uuid, item.valor -> 'payload'
        FROM jsonb_array_elements(p_itens) WITH ORDINALITY AS item (valor, posicao)
        ORDER BY item.posicao
        RETURNING sequence_number
    )
    SELECT max(sequence_number) INTO maior FROM inseridos;
    PERFORM set_config('d2.numerar_na_insercao', 'off', true);
    IF maior IS NOT NULL THEN
        PERFORM pg_notify('core_event_log', maior::text);
    END IF;
    RETURN maior;
END
$$;
