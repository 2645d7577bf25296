-- Keeps d2.mirror_cadeias in step with core.uc_polygons, once per statement, from the
-- statement's transition tables. The UCs whose chain can change are: those whose rows
-- changed id, unidade_civica_id or parent_uc_id (or appeared, or went), every UC whose
-- chain passes through one of them, and every UC whose chain stopped at one of them
-- (ultimo_pai: a missing parent that now exists, or a cycle's re-entry). Geometry-only
-- updates (a re-import) change no chain and cost one comparison of the transition tables.
-- The lock serialises writers of the chains, so two concurrent transactions (READ
-- COMMITTED) cannot each compute a chain from a snapshot without the other's change.
CREATE OR REPLACE FUNCTION d2.uc_polygons_cadeias()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    mudadas uuid[];
BEGIN
    LOCK TABLE d2.mirror_cadeias IN SHARE ROW EXCLUSIVE MODE;
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM d2.mirror_cadeias;
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT n.unidade_civica_id) INTO mudadas FROM novas n;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(DISTINCT a.unidade_civica_id) INTO mudadas FROM antigas a;
    ELSE
        SELECT array_agg(DISTINCT x.unidade_civica_id) INTO mudadas
        FROM (
            (SELECT n.id, n.unidade_civica_id, n.parent_uc_id FROM novas n
             EXCEPT
             SELECT a.id, a.unidade_civica_id, a.parent_uc_id FROM antigas a)
            UNION ALL
            (SELECT a.id, a.unidade_civica_id, a.parent_uc_id FROM antigas a
             EXCEPT
             SELECT n.id, n.unidade_civica_id, n.parent_uc_id FROM novas n)
        ) x;
    END IF;
    IF mudadas IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM d2.mirror_cadeias_atualizar(ARRAY(
        SELECT m.uc FROM unnest(mudadas) m (uc)
        UNION
        SELECT c.unidade_civica_id
        FROM d2.mirror_cadeias c
        CROSS JOIN LATERAL unnest(c.cadeia_ucs) e (uc)
        WHERE e.uc IN (SELECT unnest(mudadas))
        UNION
        SELECT c.unidade_civica_id
        FROM d2.mirror_cadeias c
        WHERE c.ultimo_pai IN (SELECT unnest(mudadas))
    ));
    RETURN NULL;
END
$$;
