-- A cursor moved by a worker that lost the leadership fails its batch
-- (see d2.consumer_offset_lideranca).
DROP TRIGGER IF EXISTS consumer_offset_lideranca ON d2.consumer_offset;
CREATE TRIGGER consumer_offset_lideranca
    AFTER UPDATE
    ON d2.consumer_offset
    FOR EACH ROW
    EXECUTE FUNCTION d2.consumer_offset_lideranca();
