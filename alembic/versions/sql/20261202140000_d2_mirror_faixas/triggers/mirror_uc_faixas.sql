-- Any change to the mirror's polygons of level <= 4 invalidates the bands it touches.
DROP TRIGGER IF EXISTS mirror_uc_faixas ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_faixas
    AFTER INSERT OR DELETE OR UPDATE OF nivel, geom
    ON d2.mirror_uc
    FOR EACH ROW
    EXECUTE FUNCTION d2.mirror_faixas_invalidar();

DROP TRIGGER IF EXISTS mirror_uc_faixas_truncate ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_faixas_truncate
    AFTER TRUNCATE
    ON d2.mirror_uc
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.mirror_faixas_invalidar();
