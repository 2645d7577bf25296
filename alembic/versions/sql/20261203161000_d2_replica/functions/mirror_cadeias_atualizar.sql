-- Recomputes the precomputed parent chains (d2.mirror_cadeias) of some UCs from the
-- source of truth, d2.cadeia_ucs. A UC with no row left in d2.uc_fonte loses its
-- chain row. ultimo_pai is the parent_uc_id of the chain's last UC: the missing parent
-- of a partial chain (or the re-entry UC of a cycle), so that inserting that parent later
-- finds the chains it completes. Returns how many chains were written.
CREATE OR REPLACE FUNCTION d2.mirror_cadeias_atualizar(ucs uuid[])
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    escritas bigint;
BEGIN
    DELETE FROM d2.mirror_cadeias c
    WHERE c.unidade_civica_id IN (SELECT pg_catalog.unnest(ucs));

    INSERT INTO d2.mirror_cadeias (unidade_civica_id, cadeia_ucs, ultimo_pai)
    SELECT u.uc, cad.cadeia, (
        SELECT p.parent_uc_id
        FROM d2.uc_fonte p
        WHERE p.unidade_civica_id = cad.cadeia[pg_catalog.cardinality(cad.cadeia)]
        ORDER BY p.id
        LIMIT 1
    )
    FROM (
        SELECT DISTINCT p.unidade_civica_id AS uc
        FROM d2.uc_fonte p
        WHERE p.unidade_civica_id IN (SELECT pg_catalog.unnest(ucs))
    ) u
    CROSS JOIN LATERAL (SELECT d2.cadeia_ucs(u.uc) AS cadeia) cad;
    GET DIAGNOSTICS escritas = ROW_COUNT;
    RETURN escritas;
END
$$;
