-- The parent chain of a UC (docs/design.md, decision 4; spec 4.3): from the UC up through
-- parent_uc_id. Stops at a parent that has no row (partial chain, spec 4.5) and
-- before a UC that is already in the chain (a cycle), so it always terminates.
-- Where a UC has several rows, the one with the smallest id decides its parent.
CREATE OR REPLACE FUNCTION d2.cadeia_ucs(uc uuid)
RETURNS uuid[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
AS $$
    WITH RECURSIVE subida (atual, pai, caminho) AS (
        SELECT inicio.unidade_civica_id, inicio.parent_uc_id, ARRAY[inicio.unidade_civica_id]
        FROM (
            SELECT u.unidade_civica_id, u.parent_uc_id
            FROM d2.uc_fonte u
            WHERE u.unidade_civica_id = uc
            ORDER BY u.id
            LIMIT 1
        ) inicio
        UNION ALL
        SELECT acima.unidade_civica_id, acima.parent_uc_id, pg_catalog.array_append(s.caminho, acima.unidade_civica_id)
        FROM subida s
        CROSS JOIN LATERAL (
            SELECT u.unidade_civica_id, u.parent_uc_id
            FROM d2.uc_fonte u
            WHERE u.unidade_civica_id = s.pai
            ORDER BY u.id
            LIMIT 1
        ) acima
        WHERE NOT acima.unidade_civica_id = ANY (s.caminho)
    )
    SELECT coalesce(
        (SELECT caminho FROM subida ORDER BY pg_catalog.cardinality(caminho) DESC LIMIT 1),
        ARRAY[uc]
    )
$$;
