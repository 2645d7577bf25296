-- Change capture on core.uc_polygons: one statement-level trigger per event, because a
-- trigger with transition tables may have only one event (and no column list).
DROP TRIGGER IF EXISTS uc_polygons_capturar_insert ON core.uc_polygons;
CREATE TRIGGER uc_polygons_capturar_insert
    AFTER INSERT ON core.uc_polygons
    REFERENCING NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_capturar();

DROP TRIGGER IF EXISTS uc_polygons_capturar_update ON core.uc_polygons;
CREATE TRIGGER uc_polygons_capturar_update
    AFTER UPDATE ON core.uc_polygons
    REFERENCING OLD TABLE AS antigas NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_capturar();

DROP TRIGGER IF EXISTS uc_polygons_capturar_delete ON core.uc_polygons;
CREATE TRIGGER uc_polygons_capturar_delete
    AFTER DELETE ON core.uc_polygons
    REFERENCING OLD TABLE AS antigas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_capturar();

DROP TRIGGER IF EXISTS uc_polygons_capturar_truncate ON core.uc_polygons;
CREATE TRIGGER uc_polygons_capturar_truncate
    AFTER TRUNCATE ON core.uc_polygons
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.uc_polygons_capturar();
