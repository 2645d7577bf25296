-- Builds the clean intervals of every pending band of d2.mirror_faixas; returns how
-- many bands it built.
--
-- A band is the strip faixa / E <= lat <= (faixa + 1) / E (closed; E =
-- d2.faixas_por_grau()). Every boundary segment of every mirror polygon of level <= 4
-- that touches the strip makes the x-range it covers inside the strip dirty (widened by
-- `folga`); what is left between two dirty ranges is a clean interval: an open
-- rectangle no boundary of level <= 4 crosses, so every level <= 4 UC either holds all
-- of it or none of it, and the answer of d2.resolver_territorio is the same at every
-- point in it. That answer is taken once, at the interval's middle, from the pieces
-- (same rule: the closed polygon holds the point, smallest nivel, official before community, then UC). An interval whose answer would be
-- of level >= 5 (or none) is not stored: those levels' borders were not looked at.
--
-- The same statement lists, for the gap after each interval (up to the band's next
-- one), the level <= 4 pieces whose bounding box meets the closed gap widened by folga,
-- in the answer's order: every piece that can hold a point of the gap, as the resolver
-- needs them (sql/tables/mirror_faixas.sql).
--
-- Rounding: a segment's x-range in a band is interpolated only when the segment rises
-- more than 1e-5 degrees (the relative error of the interpolation stays below 1e-10);
-- otherwise its whole x-range is dirty. The folga of 1e-7 degrees (1 cm) is far above
-- the error of either, so a boundary point is never inside a clean interval.
CREATE OR REPLACE FUNCTION d2.mirror_faixas_construir()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
-- A build of the whole country is one big statement: JIT would compile it for nothing.
SET jit = off
AS $$
DECLARE
    escala CONSTANT double precision := d2.faixas_por_grau();
    folga CONSTANT double precision := 1e-7;
    primeira integer;
    ultima integer;
    construidas integer;
BEGIN
    -- One builder at a time (two would build the same bands), and no write of the mirror
    -- meanwhile (d2.mirror_faixas_invalidar takes it too): sql/tables/mirror_faixas_construtor.sql.
    LOCK TABLE d2.mirror_faixas_construtor IN EXCLUSIVE MODE;
    SELECT min(faixa), max(faixa) INTO primeira, ultima FROM d2.mirror_faixas_pendentes;
    IF primeira IS NULL THEN
        RETURN 0;
    END IF;

    -- A band pending again since its last build must not keep old intervals.
    DELETE FROM d2.mirror_faixas f
    USING d2.mirror_faixas_pendentes p
    WHERE f.faixa = p.faixa;

    -- MATERIALIZED: the expressions below name each coordinate several times, and an
    -- inlined CTE computed each from the segment again (~6 s of a build of Brazil's bands).
    WITH segmentos AS MATERIALIZED (
        SELECT ST_X(ST_StartPoint(s.geom)) AS xa, ST_Y(ST_StartPoint(s.geom)) AS ya,
               ST_X(ST_EndPoint(s.geom)) AS xb, ST_Y(ST_EndPoint(s.geom)) AS yb
        FROM d2.mirror_uc m
        CROSS JOIN LATERAL ST_DumpSegments(ST_Boundary(m.geom)) s
        WHERE m.nivel <= 4
          AND m.geom && ST_MakeEnvelope(
              -180::double precision, primeira / escala - folga, 180::double precision,
              (ultima + 1) / escala + folga, 4326
          )
    ),
    cortes AS (
        SELECT b.faixa,
               CASE WHEN abs(s.yb - s.ya) > 1e-5
                    THEN least(s.xa + (s.xb - s.xa) * t.t0, s.xa + (s.xb - s.xa) * t.t1)
                    ELSE least(s.xa, s.xb) END - folga AS x0,
               CASE WHEN abs(s.yb - s.ya) > 1e-5
                    THEN greatest(s.xa + (s.xb - s.xa) * t.t0, s.xa + (s.xb - s.xa) * t.t1)
                    ELSE greatest(s.xa, s.xb) END + folga AS x1
        FROM segmentos s
        CROSS JOIN LATERAL generate_series(
            floor((least(s.ya, s.yb) - folga) * escala)::integer,
            floor((greatest(s.ya, s.yb) + folga) * escala)::integer
        ) AS b (faixa)
        JOIN d2.mirror_faixas_pendentes p ON p.faixa = b.faixa
        CROSS JOIN LATERAL (
            SELECT greatest(0, least(1, (b.faixa / escala - folga - s.ya)
                                        / nullif(s.yb - s.ya, 0))) AS t0,
                   greatest(0, least(1, ((b.faixa + 1) / escala + folga - s.ya)
                                        / nullif(s.yb - s.ya, 0))) AS t1
        ) t
    ),
    sujos AS (
        SELECT c.faixa, c.x0,
               max(c.x1) OVER (
                   PARTITION BY c.faixa ORDER BY c.x0, c.x1
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
               ) AS antes
        FROM cortes c
    ),
    limpos AS MATERIALIZED (
        SELECT s.faixa, s.antes AS x_inicio, s.x0 AS x_fim,
               (s.antes + s.x0) / 2 AS x_meio, (s.faixa + 0.5) / escala AS y_meio
        FROM sujos s
        WHERE s.x0 > s.antes
    ),
    pedacos AS MATERIALIZED (
        SELECT b.faixa, p.id, p.unidade_civica_id, p.nivel, p.prioridade, p.geom,
               ST_XMin(p.geom::box3d) AS x_min,
               ST_XMax(p.geom::box3d) AS x_max, ST_YMin(p.geom::box3d) AS y_min,
               ST_YMax(p.geom::box3d) AS y_max
        FROM d2.mirror_pieces p
        CROSS JOIN LATERAL generate_series(
            floor(ST_YMin(p.geom::box3d) * escala)::integer,
            floor(ST_YMax(p.geom::box3d) * escala)::integer
        ) AS b (faixa)
        WHERE p.nivel <= 4
          AND p.geom && ST_MakeEnvelope(
              -180::double precision, primeira / escala - folga, 180::double precision,
              (ultima + 1) / escala + folga, 4326
          )
    ),
    -- Each band's intervals as sorted arrays (they are disjoint: their middles increase).
    faixas_limpas AS MATERIALIZED (
        SELECT l.faixa, l.y_meio,
               pg_catalog.array_agg(l.x_inicio ORDER BY l.x_inicio) AS inicios,
               pg_catalog.array_agg(l.x_fim ORDER BY l.x_inicio) AS fins,
               pg_catalog.array_agg(l.x_meio ORDER BY l.x_inicio) AS meios
        FROM limpos l
        GROUP BY l.faixa, l.y_meio
    ),
    -- Every (piece, middle) pair whose piece holds the middle, found piece by piece: one
    -- hash join of pieces and bands, then only the intervals whose middle can lie in the
    -- piece's box (consecutive: from the last middle at or left of x_min to the last at
    -- or left of x_max, two binary searches) instead of every interval of the band, and
    -- the same piece tested against many points in a row. _ST_Covers (the predicate
    -- without its index support) keeps the planner from turning this back into a GIST
    -- search per interval.
    contidos AS (
        SELECT f.faixa, f.inicios[k.k] AS x_inicio, f.fins[k.k] AS x_fim,
               p.unidade_civica_id, p.nivel, p.prioridade
        FROM pedacos p
        JOIN faixas_limpas f ON f.faixa = p.faixa
        CROSS JOIN LATERAL generate_series(
            greatest(pg_catalog.width_bucket(p.x_min, f.meios), 1),
            pg_catalog.width_bucket(p.x_max, f.meios)
        ) AS k (k)
        WHERE f.y_meio BETWEEN p.y_min AND p.y_max
          AND f.meios[k.k] BETWEEN p.x_min AND p.x_max
          AND _ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(f.meios[k.k], f.y_meio), 4326))
    ),
    -- The resolver's rule: the smallest nivel, official before community, then the
    -- smallest UC. Stored as runs of 64 intervals of a band, in x order
    -- (sql/tables/mirror_faixas.sql): each interval gives its start and end to limites.
    respostas AS MATERIALIZED (
        SELECT r.*, (r.k - 1) / 64 AS corrida
        FROM (
            SELECT r.*,
                   pg_catalog.row_number() OVER (PARTITION BY r.faixa ORDER BY r.x_inicio) AS k
            FROM (
                SELECT DISTINCT ON (c.faixa, c.x_inicio) c.faixa, c.x_inicio, c.x_fim,
                       c.unidade_civica_id, c.nivel
                FROM contidos c
                ORDER BY c.faixa, c.x_inicio, c.nivel, c.prioridade, c.unidade_civica_id
            ) r
        ) r
    ),
    -- Each band's intervals as two sorted arrays: where the gap after interval k starts
    -- (its end) and where the gap before interval k + 1 ends (that one's start).
    bordas AS MATERIALIZED (
        SELECT r.faixa, pg_catalog.count(*)::integer AS n,
               pg_catalog.array_agg(r.x_fim ORDER BY r.k) AS fins,
               pg_catalog.array_agg(r.x_inicio ORDER BY r.k) AS inicios
        FROM respostas r
        GROUP BY r.faixa
    ),
    -- The gap after interval k (closed, up to interval k + 1; none after the band's last)
    -- widened by folga, and every level <= 4 piece whose bounding box meets it: the gaps
    -- a piece meets are consecutive, from the first that ends at or after its x_min to
    -- the last that starts at or before its x_max, two binary searches per piece and
    -- band instead of a comparison with every gap. A superset of the pieces that can hold
    -- a point of the gap; the resolver tests them in the answer's order.
    lacunas AS (
        SELECT p.faixa, k.k, p.id, p.nivel, p.prioridade, p.unidade_civica_id
        FROM pedacos p
        JOIN bordas b ON b.faixa = p.faixa
        CROSS JOIN LATERAL generate_series(
            pg_catalog.width_bucket(p.x_min - folga, b.inicios[2:b.n]) + 1,
            least(pg_catalog.width_bucket(p.x_max + folga, b.fins), b.n - 1)
        ) AS k (k)
        WHERE b.n > 1
    ),
    por_lacuna AS (
        SELECT l.faixa, l.k, pg_catalog.count(*) AS n
        FROM lacunas l
        GROUP BY l.faixa, l.k
    ),
    -- corte[g] .. corte[g + 1] - 1: where the gap after interval g lies in pedacos.
    cortes_das_corridas AS (
        SELECT k.faixa, k.corrida,
               pg_catalog.array_prepend(1, pg_catalog.array_agg(k.fim ORDER BY k.k)) AS corte
        FROM (
            SELECT r.faixa, r.corrida, r.k,
                   (1 + pg_catalog.sum(coalesce(n.n, 0)) OVER (
                       PARTITION BY r.faixa, r.corrida ORDER BY r.k
                   ))::integer AS fim
            FROM respostas r
            LEFT JOIN por_lacuna n ON n.faixa = r.faixa AND n.k = r.k
        ) k
        GROUP BY k.faixa, k.corrida
    ),
    pedacos_das_corridas AS (
        SELECT l.faixa, (l.k - 1) / 64 AS corrida,
               pg_catalog.array_agg(
                   l.id ORDER BY l.k, l.nivel, l.prioridade, l.unidade_civica_id, l.id
               ) AS pedacos
        FROM lacunas l
        GROUP BY l.faixa, (l.k - 1) / 64
    ),
    corridas AS (
        SELECT c.faixa, c.corrida, pg_catalog.min(c.x_inicio) AS x_inicio,
               pg_catalog.array_agg(e.x ORDER BY c.k, e.ponta) AS limites,
               pg_catalog.array_agg(c.unidade_civica_id ORDER BY c.k)
                   FILTER (WHERE e.ponta = 1) AS unidades,
               pg_catalog.array_agg(c.nivel ORDER BY c.k) FILTER (WHERE e.ponta = 1)
                   AS niveis
        FROM respostas c
        CROSS JOIN LATERAL (VALUES (1, c.x_inicio), (2, c.x_fim)) AS e (ponta, x)
        GROUP BY c.faixa, c.corrida
    )
    INSERT INTO d2.mirror_faixas (faixa, x_inicio, limites, unidades, niveis, corte, pedacos)
    SELECT c.faixa, c.x_inicio, c.limites, c.unidades, c.niveis, k.corte,
           coalesce(p.pedacos, ARRAY[]::bigint[])
    FROM corridas c
    JOIN cortes_das_corridas k ON k.faixa = c.faixa AND k.corrida = c.corrida
    LEFT JOIN pedacos_das_corridas p ON p.faixa = c.faixa AND p.corrida = c.corrida;

    DELETE FROM d2.mirror_faixas_pendentes;
    GET DIAGNOSTICS construidas = ROW_COUNT;
    RETURN construidas;
END
$$;
