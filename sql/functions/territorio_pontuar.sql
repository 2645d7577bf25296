-- Recomputes the consensus scores (d2.territorio_submissoes.pontuacao) of one community
-- UC's latest 50 versions from scratch: each version's total intersection area with the
-- others. The worker never calls it (it adds to the scores as drawings arrive); a
-- moderator's rejection takes a version out of the consensus, and its share must leave
-- the others' totals. Shapes simplified to ~1 m first: the totals rank versions, and a
-- metre of detail changes no ranking.
CREATE OR REPLACE FUNCTION d2.territorio_pontuar(p_uc uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    WITH versoes AS (
        SELECT s.id, ST_SimplifyPreserveTopology(s.geom, 1e-5) AS geom
        FROM d2.territorio_versoes(p_uc) s
    ),
    totais AS (
        SELECT a.id,
               coalesce(sum(ST_Area(ST_Intersection(a.geom, b.geom)))
                        FILTER (WHERE b.id IS NOT NULL), 0) AS total
        FROM versoes a
        LEFT JOIN versoes b ON b.id <> a.id AND a.geom && b.geom
        GROUP BY a.id
    )
    UPDATE d2.territorio_submissoes s SET pontuacao = t.total
    FROM totais t
    WHERE s.id = t.id;
END
$$;
