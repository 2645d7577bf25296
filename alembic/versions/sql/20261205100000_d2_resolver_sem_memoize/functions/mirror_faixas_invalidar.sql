-- Keeps d2.mirror_faixas honest: a change to a mirror row of level <= 4 deletes the
-- clean intervals of every band its old or new geometry touches and marks those bands
-- pending (d2.mirror_faixas_construir rebuilds them). Deleting is always safe: a point
-- with no interval is resolved by the GIST tiers.
CREATE OR REPLACE FUNCTION d2.mirror_faixas_invalidar()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    geometrias geometry[] := ARRAY[]::geometry[];
    g geometry;
BEGIN
    -- The builder's lock (sql/tables/mirror_faixas_construtor.sql): a writer and a build
    -- never interleave, so a build never reads geometry older than the pending marks it
    -- clears.
    IF TG_OP = 'TRUNCATE' THEN
        LOCK TABLE d2.mirror_faixas_construtor IN EXCLUSIVE MODE;
        TRUNCATE d2.mirror_faixas, d2.mirror_faixas_pendentes;
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.nivel <= 4 THEN
        geometrias := pg_catalog.array_append(geometrias, OLD.geom);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.nivel <= 4 THEN
        geometrias := pg_catalog.array_append(geometrias, NEW.geom);
    END IF;
    IF pg_catalog.cardinality(geometrias) > 0 THEN
        LOCK TABLE d2.mirror_faixas_construtor IN EXCLUSIVE MODE;
    END IF;
    FOREACH g IN ARRAY geometrias LOOP
        INSERT INTO d2.mirror_faixas_pendentes (faixa)
        SELECT d2.faixas_tocadas(g)
        ON CONFLICT DO NOTHING;
        -- The bands touched are one range (d2.faixas_tocadas): deleted as a range, a
        -- B-tree range scan; `IN (SELECT d2.faixas_tocadas(g))` was planned as a hash
        -- join over a sequential scan of the whole table, once per row changed.
        DELETE FROM d2.mirror_faixas
        WHERE faixa BETWEEN (SELECT min(t) FROM d2.faixas_tocadas(g) t)
                        AND (SELECT max(t) FROM d2.faixas_tocadas(g) t);
    END LOOP;
    RETURN NULL;
END
$$;
