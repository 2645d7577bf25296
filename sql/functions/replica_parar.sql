-- Records that the replica's breaker stopped it before p_event_id, for
-- d2/territorio/replica.py after d2.replica_aplicar answered 'parado' (whose transaction
-- it rolled back: the stop is recorded in a transaction of its own, the cursor stays
-- before the event). True when this call stopped it; false when it was stopped already.
-- SECURITY DEFINER: d2_worker has no write grant on d2.replica_paradas.
CREATE OR REPLACE FUNCTION d2.replica_parar(p_event_id uuid, p_motivo text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO d2.replica_paradas (event_id, motivo)
    VALUES (p_event_id, left(p_motivo, 500))
    ON CONFLICT DO NOTHING;
    RETURN FOUND;
END
$$;
