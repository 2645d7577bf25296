-- One statement-level trigger per event: a trigger with transition tables may have only one.
DROP TRIGGER IF EXISTS mirror_uc_regeo_insert ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_regeo_insert
    AFTER INSERT ON d2.mirror_uc
    REFERENCING NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.mirror_uc_regeo_areas();

DROP TRIGGER IF EXISTS mirror_uc_regeo_update ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_regeo_update
    AFTER UPDATE ON d2.mirror_uc
    REFERENCING OLD TABLE AS antigas NEW TABLE AS novas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.mirror_uc_regeo_areas();

DROP TRIGGER IF EXISTS mirror_uc_regeo_delete ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_regeo_delete
    AFTER DELETE ON d2.mirror_uc
    REFERENCING OLD TABLE AS antigas
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.mirror_uc_regeo_areas();

DROP TRIGGER IF EXISTS mirror_uc_regeo_truncate ON d2.mirror_uc;
CREATE TRIGGER mirror_uc_regeo_truncate
    AFTER TRUNCATE ON d2.mirror_uc
    FOR EACH STATEMENT
    EXECUTE FUNCTION d2.mirror_uc_regeo_areas();
