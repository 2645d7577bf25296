-- Records that the replica's breaker stopped it before p_event_id, for
-- d2/territorio/replica.py after d2.replica_aplicar answered 'parado' (whose transaction
-- it rolled back: the stop is recorded in a transaction of its own, the cursor stays
-- before the event). The caller's word is not enough: the event is judged again, here,
-- and only when d2.replica_aplicar answers 'parado' for it (the limits of
-- d2.replica_limites, which only the owner writes) is the stop recorded, with that
-- answer's motivo. Anything else raises, and whatever the judgement wrote is rolled back:
-- a worker's login cannot stop the replica at will. True when this call stopped it; false
-- when it was stopped already.
-- SECURITY DEFINER: d2_worker has no write grant on d2.replica_paradas.
CREATE OR REPLACE FUNCTION d2.replica_parar(p_event_id uuid)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    julgado record;
BEGIN
    SELECT a.desfecho, a.motivo INTO julgado FROM d2.replica_aplicar(p_event_id) a;
    IF julgado.desfecho IS DISTINCT FROM 'parado' THEN
        RAISE EXCEPTION 'the breaker does not hold event %', p_event_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO d2.replica_paradas (event_id, motivo)
    VALUES (p_event_id, left(julgado.motivo, 500))
    ON CONFLICT DO NOTHING;
    RETURN FOUND;
END
$$;
