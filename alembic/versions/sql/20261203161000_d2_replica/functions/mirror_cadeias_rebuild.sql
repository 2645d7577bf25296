-- Rebuilds every precomputed chain (d2.mirror_cadeias) from d2.cadeia_ucs, the source of
-- truth. Returns how many chains were written.
CREATE OR REPLACE FUNCTION d2.mirror_cadeias_rebuild()
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    LOCK TABLE d2.mirror_cadeias IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM d2.mirror_cadeias;
    RETURN d2.mirror_cadeias_atualizar(
        ARRAY(SELECT DISTINCT u.unidade_civica_id FROM d2.uc_fonte u)
    );
END
$$;
