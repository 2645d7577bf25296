-- Keeps the precomputed chains (d2.mirror_cadeias) fresh: one trigger per event, because
-- a trigger with transition tables may have only one event.
DROP TRIGGER IF EXISTS uc_polygons_cadeias_insert ON core.uc_polygons;
CREATE TRIGGER uc_polygons_cadeias_insert
    AFTER INSERT ON core.uc_polygons
    REFERENCING NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_cadeias();

DROP TRIGGER IF EXISTS uc_polygons_cadeias_update ON core.uc_polygons;
CREATE TRIGGER uc_polygons_cadeias_update
    AFTER UPDATE ON core.uc_polygons
    REFERENCING OLD TABLE AS antigas NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_cadeias();

DROP TRIGGER IF EXISTS uc_polygons_cadeias_delete ON core.uc_polygons;
CREATE TRIGGER uc_polygons_cadeias_delete
    AFTER DELETE ON core.uc_polygons
    REFERENCING OLD TABLE AS antigas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_cadeias();

DROP TRIGGER IF EXISTS uc_polygons_cadeias_truncate ON core.uc_polygons;
CREATE TRIGGER uc_polygons_cadeias_truncate
    AFTER TRUNCATE ON core.uc_polygons
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_cadeias();
