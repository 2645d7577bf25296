-- Version 2 of d2.uc_polygons_mirror_statement (migration 20261202140000): once per
-- statement on core.uc_polygons, after the row triggers synced the mirror, build the
-- bands of d2.mirror_faixas they left pending (nothing when no level <= 4 row changed),
-- then bump the version the worker compares to empty its cache, and wake listeners.
-- A loader that writes in many statements may `SET LOCAL d2.adiar_faixas = on` and call
-- d2.mirror_faixas_construir() once at the end: meanwhile the pending bands have no
-- intervals, which only makes their points take the GIST tiers (never a wrong answer).
CREATE OR REPLACE FUNCTION d2.uc_polygons_mirror_statement()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    nova bigint;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE d2.mirror_pieces, d2.mirror_uc, d2.mirror_rejected;
    END IF;
    IF coalesce(current_setting('d2.adiar_faixas', true), '') <> 'on' THEN
        PERFORM d2.mirror_faixas_construir();
    END IF;
    UPDATE d2.mirror_state SET versao = versao + 1, alterado_em = clock_timestamp()
    RETURNING versao INTO nova;
    PERFORM pg_notify('d2_mirror', nova::text);
    RETURN NULL;
END
$$;
