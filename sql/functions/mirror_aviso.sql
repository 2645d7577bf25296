-- Says, once per statement, that the mirror lags core.uc_polygons: a psql user calling
-- d2.resolver_territorio / d2.resolver_territorios right after a write to
-- core.uc_polygons would otherwise get the answer of the mirror before it, with no word.
-- The resolver calls it as `WHERE (SELECT d2.mirror_aviso())`: a sub-select with no
-- outer reference is an InitPlan, run once per execution of the statement and kept
-- across the rescans of a LATERAL, so a thousand points cost one look at an empty table,
-- not a thousand (d2 bench pip measures it). Always true: it never changes an answer.
-- STABLE, so the resolver stays an inlinable SQL function; SECURITY DEFINER, so the
-- callers of the resolver need no privilege on d2.mirror_mudancas. D-2's own sessions,
-- which apply the changes themselves at each poll, set d2.avisar_mirror = off. On a hot
-- standby nobody can apply them there: the hint says where they are applied instead.
CREATE OR REPLACE FUNCTION d2.mirror_aviso()
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    IF coalesce(current_setting('d2.avisar_mirror', true), '') = 'off'
       OR NOT EXISTS (SELECT 1 FROM d2.mirror_mudancas) THEN
        RETURN true;
    END IF;
    SELECT count(*) INTO n FROM d2.mirror_mudancas;
    IF pg_is_in_recovery() THEN
        RAISE WARNING 'd2: % change(s) of core.uc_polygons wait to be applied to the mirror; this server is a hot standby (read-only), so this answer comes from the mirror before them', n
            USING HINT = 'The worker on the primary applies them, and they arrive here by replication.';
        RETURN true;
    END IF;
    RAISE WARNING 'd2: % change(s) of core.uc_polygons wait to be applied to the mirror; this answer comes from the mirror before them', n
        USING HINT = 'Apply them with `d2 mirror sync --wait` (a running `d2 worker` applies them at its next poll).';
    RETURN true;
END
$$;
