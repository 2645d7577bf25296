-- Keeps the mirror in step with core.uc_polygons, row by row, without a restart.
CREATE OR REPLACE FUNCTION d2.uc_polygons_mirror_row()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM d2.mirror_sync(OLD.id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND (TG_OP = 'INSERT' OR NEW.id IS DISTINCT FROM OLD.id) THEN
        PERFORM d2.mirror_sync(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

-- Once per statement: bump the version the worker compares to empty its cache
-- (a changed parent_uc_id changes cached chains too), and wake listeners.
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
    UPDATE d2.mirror_state SET versao = versao + 1, alterado_em = clock_timestamp()
    RETURNING versao INTO nova;
    PERFORM pg_notify('d2_mirror', nova::text);
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS uc_polygons_mirror_row ON core.uc_polygons;
CREATE TRIGGER uc_polygons_mirror_row
    AFTER INSERT OR DELETE OR UPDATE OF id, unidade_civica_id, nivel, geometria
    ON core.uc_polygons
    FOR EACH ROW
    EXECUTE FUNCTION d2.uc_polygons_mirror_row();

DROP TRIGGER IF EXISTS uc_polygons_mirror_statement ON core.uc_polygons;
CREATE TRIGGER uc_polygons_mirror_statement
    AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE
    ON core.uc_polygons
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_mirror_statement();
