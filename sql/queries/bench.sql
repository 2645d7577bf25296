-- Queries of the benchmarks only (the service's own live in sql/queries/).

-- name: bench_uc_insert
-- Load prepared UC rows (JSON array) into core.uc_polygons; the mirror triggers run.
INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte)
SELECT r.id, r.id, r.nivel, r.parent, r.nome, r.geometria, 'bench'
FROM jsonb_to_recordset(%(rows)s::jsonb)
    AS r (id uuid, nivel integer, parent uuid, nome text, geometria jsonb);

-- name: bench_synthetic_bairros
-- A synthetic bairro layer (level 2): Voronoi cells of random seeds inside every
-- municipality, clipped to it; about %(total)s cells, more in bigger municipalities (one
-- with fewer than 2 gets none: a single bairro would just repeat the municipality).
WITH mun AS (
    SELECT m.unidade_civica_id, m.geom, sqrt(ST_Area(m.geom)) AS peso
    FROM d2.mirror_uc m
    WHERE m.nivel = 4
), quantos AS (
    SELECT *
    FROM (
        SELECT mun.*, round(%(total)s * peso / sum(peso) OVER ())::integer AS k FROM mun
    ) pesados
    WHERE k >= 2
), celulas AS (
    SELECT q.unidade_civica_id AS mun, row_number() OVER () AS n,
           ST_Multi(ST_CollectionExtract(ST_Intersection(v.geom, q.geom), 3)) AS geom
    FROM quantos q
    CROSS JOIN LATERAL (
        SELECT (ST_Dump(ST_VoronoiPolygons(ST_GeneratePoints(q.geom, q.k, 42)))).geom
    ) v
)
INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte)
SELECT md5(c.mun::text || c.n)::uuid, md5(c.mun::text || c.n)::uuid, 2, c.mun,
       'Bairro sintético ' || c.n, ST_AsGeoJSON(c.geom, 7)::jsonb, 'bench'
FROM celulas c
WHERE NOT ST_IsEmpty(c.geom) AND ST_Area(c.geom) > 0;

-- name: bench_total_perimeter
-- Total boundary length (degrees) and vertices of the mirror, per level.
SELECT m.nivel, count(*) AS n, sum(ST_Perimeter(m.geom)) AS perimetro,
       sum(ST_NPoints(m.geom))::bigint AS vertices
FROM d2.mirror_uc m
GROUP BY m.nivel
ORDER BY m.nivel;

-- name: bench_densify
-- Densify the mirror's geometry to segments of at most %(passo)s degrees.
UPDATE d2.mirror_uc m
SET geom = ST_Multi(ST_Segmentize(m.geom, %(passo)s)),
    n_vertices = ST_NPoints(ST_Segmentize(m.geom, %(passo)s));

-- name: bench_split_clear
-- Empty the pieces before cutting them again.
TRUNCATE d2.mirror_pieces;

-- name: bench_split
-- Cut the mirror into pieces of at most %(cap)s vertices (what d2.mirror_sync does).
INSERT INTO d2.mirror_pieces (uc_polygon_id, unidade_civica_id, nivel, geom)
SELECT m.uc_polygon_id, m.unidade_civica_id, m.nivel, pedaco.geom
FROM d2.mirror_uc m
CROSS JOIN LATERAL (SELECT (ST_Dump(ST_Subdivide(m.geom, %(cap)s))).geom AS geom) pedaco
WHERE GeometryType(pedaco.geom) = 'POLYGON';

-- name: bench_bands_clear
-- The bands emptied at once, so that building them again leaves no dead rows behind (the
-- mirror's size the bench prints is that of tables freshly built).
TRUNCATE d2.mirror_faixas;

-- name: bench_bands_pending
-- Every band of a level <= 4 polygon pending again: the cut above bypassed d2.mirror_sync,
-- whose trigger on d2.mirror_uc drops the bands of what it rewrites, so the bands' lists
-- of pieces (sql/tables/mirror_faixas.sql) still named the old pieces.
INSERT INTO d2.mirror_faixas_pendentes (faixa)
SELECT DISTINCT d2.faixas_tocadas(m.geom)
FROM d2.mirror_uc m
WHERE m.nivel <= 4
ON CONFLICT DO NOTHING;

-- name: bench_split_index
-- Build the resolver's index again after the cut, as d2.mirror_rebuild does: inserts
-- fill the pages its build leaves nine tenths empty (sql/tables/mirror_pieces.sql).
REINDEX INDEX d2.mirror_pieces_geom_mun_sub_idx;

-- name: bench_mirror_size
-- What the resolver reads, in MB, indexes included: polygons, pieces, chains, intervals.
SELECT sum(pg_total_relation_size(t)) / 1048576.0 AS mb
FROM unnest(ARRAY['d2.mirror_uc', 'd2.mirror_pieces', 'd2.mirror_cadeias',
                  'd2.mirror_faixas']::regclass[]) t;

-- name: bench_bands_build
-- Build the bands the mirror's triggers left pending (d2.mirror_faixas).
SELECT d2.mirror_faixas_construir() AS faixas;

-- name: bench_bands_count
-- How many clean intervals the bands hold (a row of d2.mirror_faixas holds a run of them).
SELECT coalesce(sum(cardinality(f.unidades)), 0) AS n FROM d2.mirror_faixas f;

-- name: bench_pieces_stats
-- How many pieces, and their vertices.
SELECT count(*) AS n, avg(ST_NPoints(p.geom)) AS media_vertices,
       pg_total_relation_size('d2.mirror_pieces') AS bytes
FROM d2.mirror_pieces p;

-- name: bench_points_in_brasil
-- Random points inside the country (level 7): uniform over its area.
SELECT ST_Y(g.geom) AS lat, ST_X(g.geom) AS lng
FROM d2.mirror_uc m
CROSS JOIN LATERAL (SELECT (ST_Dump(ST_GeneratePoints(m.geom, %(n)s, %(seed)s))).geom) g
WHERE m.nivel = 7;

-- name: bench_border_points
-- Random points within about 100 m of a municipal or bairro boundary: a random point on
-- a random municipality's or bairro's boundary, moved by up to 0.0009 degrees in each
-- direction.
WITH fronteira AS (
    SELECT ST_Boundary(m.geom) AS linha, row_number() OVER (ORDER BY m.uc_polygon_id) AS i
    FROM d2.mirror_uc m
    WHERE m.nivel IN (2, 4)
), n AS (SELECT count(*) AS total FROM fronteira),
sorteio AS (
    SELECT s, 1 + floor(random() * n.total)::bigint AS i, random() AS f,
           random() AS dx, random() AS dy
    FROM n, generate_series(1, %(n)s) s
)
SELECT ST_Y(p) + (s.dy - 0.5) * 0.0018 AS lat, ST_X(p) + (s.dx - 0.5) * 0.0018 AS lng
FROM sorteio s
JOIN fronteira f USING (i)
CROSS JOIN LATERAL (SELECT ST_LineInterpolatePoint(
    ST_GeometryN(ST_LineMerge(f.linha), 1), s.f) AS p) pt;

-- name: bench_seed
-- Make random() repeatable for this session.
SELECT setseed(%(seed)s);

-- name: bench_resolve_batch
-- The set-based resolver over a batch of points (what the worker calls, and as it calls
-- it: binary float8 arrays, like the baseline below).
SELECT count(*) AS resolvidos
FROM d2.resolver_territorios(%(lats)b::double precision[], %(lngs)b::double precision[]);

-- name: bench_resolve_one_by_one
-- The one-point resolver as psql users and other colonies call it, once per point
-- through LATERAL: the same points, the same arrays.
SELECT count(*) AS resolvidos
FROM unnest(%(lats)b::double precision[], %(lngs)b::double precision[]) AS p (lat, lng)
CROSS JOIN LATERAL d2.resolver_territorio(p.lat, p.lng) r;

-- name: bench_resolve_answers
-- The batch resolver's answer per point (1-based position, UC), to compare with the
-- in-process peer's.
SELECT r.ordem, r.unidade_civica_id
FROM d2.resolver_territorios(%(lats)b::double precision[], %(lngs)b::double precision[]) r;

-- name: bench_contains_unsubdivided
-- Baseline (a): the same answer from plain ST_Contains over the unsubdivided mirror.
SELECT count(*) AS resolvidos
FROM unnest(%(lats)b::double precision[], %(lngs)b::double precision[]) AS pt (lat, lng)
CROSS JOIN LATERAL (
    SELECT m.unidade_civica_id
    FROM d2.mirror_uc m
    WHERE ST_Contains(
        m.geom, ST_SetSRID(ST_MakePoint(round(pt.lng::numeric, 5)::float8,
                                        round(pt.lat::numeric, 5)::float8), 4326)
    )
    ORDER BY m.nivel, m.unidade_civica_id
    LIMIT 1
) achado;

-- name: bench_geometries
-- The mirror's geometry for an in-process index: WKB, level, UC, in the resolver's
-- order (smallest nivel, official before community, then UC).
SELECT m.unidade_civica_id, m.nivel, ST_AsBinary(m.geom) AS wkb
FROM d2.mirror_uc m
ORDER BY m.nivel, m.prioridade, m.unidade_civica_id;

-- name: bench_events_insert
-- A backlog of demanda.normalizada events published in one transaction the way an
-- upstream producer writes them (plain INSERT): one per row of the arrays, with GPS where
-- lat is not null and address text where endereco is not null. A shorter array
-- reads as nulls: {"lats": ..., "lngs": ..., "enderecos": []} is a GPS-only backlog.
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT gen_random_uuid(), 'demanda.normalizada', '1.2.0', 'D-1b', NULL,
       jsonb_build_object(
           'demanda_id', gen_random_uuid(),
           'titulo', 'Buraco na rua',
           'descricao_limpa', 'Há um buraco grande na rua principal',
           'tipo_midia_processada', 'texto',
           'coordenadas_validadas',
               CASE WHEN e.lat IS NOT NULL THEN jsonb_build_object('lat', e.lat, 'lng', e.lng) END,
           'confianca_normalizacao', 0.9,
           'origem_normalizacao', 'automatico',
           'conteudo_suspeito', false
       ) || CASE WHEN e.endereco IS NULL THEN '{}'::jsonb
                 ELSE jsonb_build_object('entidades_extraidas',
                                         jsonb_build_object('endereco', e.endereco)) END
FROM unnest(%(lats)s::double precision[], %(lngs)s::double precision[], %(enderecos)s::text[])
     AS e (lat, lng, endereco);

-- name: bench_event_one
-- One demanda.normalizada (the latency trickle).
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (gen_random_uuid(), 'demanda.normalizada', '1.2.0', 'D-1b', NULL,
        jsonb_build_object(
            'demanda_id', %(demanda_id)s::text,
            'titulo', 'Buraco na rua',
            'descricao_limpa', 'Há um buraco grande na rua principal',
            'tipo_midia_processada', 'texto',
            'coordenadas_validadas', jsonb_build_object('lat', %(lat)s::float8, 'lng', %(lng)s::float8),
            'confianca_normalizacao', 0.9,
            'origem_normalizacao', 'automatico',
            'conteudo_suspeito', false
        ));

-- name: bench_max_sequence
-- The highest sequence number of the input events.
SELECT coalesce(max(sequence_number), 0) AS seq
FROM core.event_log
WHERE tipo = 'demanda.normalizada';

-- name: bench_outputs_since
-- Output events after a sequence number.
SELECT sequence_number, payload ->> 'demanda_id' AS demanda_id
FROM core.event_log
WHERE tipo = 'demanda.georreferenciada' AND sequence_number > %(seq)s
ORDER BY sequence_number;

-- name: bench_cursor_exists
-- Has the worker seeded its cursor (boot done)?
SELECT count(*) AS n FROM d2.consumer_offset WHERE tipo_evento = 'demanda.normalizada';

-- name: bench_regeo_store
-- Stored resolutions for many points, as the handler writes them, resolved in one batch.
INSERT INTO d2.resolucoes_geo (
    id, demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs, metodo_resolucao,
    confianca_geo, coordenadas_lat, coordenadas_lng, event_id, correlacao_id
)
SELECT gen_random_uuid(), gen_random_uuid(), r.unidade_civica_id, r.nivel_minimo_resolvido,
       r.cadeia_ucs, 'gps', 'alta', %(lats)s[r.ordem], %(lngs)s[r.ordem],
       gen_random_uuid(), gen_random_uuid()
FROM d2.resolver_territorios(%(lats)s::double precision[], %(lngs)s::double precision[]) r;

-- name: bench_regeo_page_by_row
-- The full pass's page as it was before d2.regeo_comparar: d2.resolver_territorio once
-- per stored row, through LATERAL (the baseline of `d2 bench regeo`).
SELECT r.id, n.unidade_civica_id AS nova_uc
FROM (
    SELECT g.id, g.coordenadas_lat, g.coordenadas_lng
    FROM d2.resolucoes_geo g
    WHERE g.id > %(apos)s::uuid
    ORDER BY g.id
    LIMIT %(lote)s
) r
LEFT JOIN LATERAL d2.resolver_territorio(r.coordenadas_lat, r.coordenadas_lng) n ON true
ORDER BY r.id;

-- name: bench_regeo_fullest_municipio
-- The município holding the most stored resolutions, and how many.
SELECT c.municipio, count(*) AS n
FROM d2.resolucoes_geo r
CROSS JOIN LATERAL (
    SELECT u AS municipio FROM unnest(r.cadeia_ucs) u
    JOIN d2.mirror_uc m ON m.unidade_civica_id = u AND m.nivel = 4
    LIMIT 1
) c
GROUP BY c.municipio
ORDER BY n DESC
LIMIT 1;

-- name: bench_regeo_shrink_municipio
-- One município's polygon changes: shrunk by ~200 m (its border points now fall to a
-- neighbour or to no polygon). Returns how many stored points lie in the old or new shape.
WITH antes AS (
    SELECT m.geom FROM d2.mirror_uc m WHERE m.unidade_civica_id = %(uc)s AND m.nivel = 4
), mudou AS (
    UPDATE core.uc_polygons p
    SET geometria = ST_AsGeoJSON(ST_Multi(ST_Buffer(a.geom, -0.002)), 7)::jsonb
    FROM antes a
    WHERE p.unidade_civica_id = %(uc)s
    RETURNING 1
)
SELECT (SELECT count(*) FROM mudou) AS linhas,
       (SELECT count(*) FROM d2.resolucoes_geo r, antes a
        WHERE ST_Intersects(a.geom, ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326)))
           AS dentro;
-- name: bench_capture_municipios
-- The municipalities a staleness run moves.
SELECT id FROM core.uc_polygons WHERE nivel = 4 ORDER BY id;

-- name: bench_capture_move
-- A border edit: one municipality moved by 1e-4 degrees (about 11 m) east.
UPDATE core.uc_polygons
SET geometria = ST_AsGeoJSON(ST_Translate(ST_GeomFromGeoJSON(geometria::text), 1e-4, 0))::jsonb
WHERE id = %(id)s;
-- name: bench_monolith_event_log
-- core.event_log as the monolith creates it before D-2 is installed (a serial number).
CREATE SCHEMA IF NOT EXISTS core;
CREATE TABLE core.event_log (
    sequence_number BIGSERIAL NOT NULL UNIQUE,
    event_id        UUID PRIMARY KEY,
    tipo            VARCHAR(255) NOT NULL,
    versao_schema   VARCHAR(32) NOT NULL DEFAULT '1.0.0',
    origem          VARCHAR(100) NOT NULL,
    correlacao_id   UUID,
    payload         JSONB NOT NULL,
    publicado_em    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- name: bench_producer_insert
-- One event, as a colony's EventBusService writes it; of a type D-2 reads (its readers
-- serve only those: d2.eventos_tipos_lidos).
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
VALUES (%(event_id)s, %(tipo)s, '1.0.0', 'N-1', NULL, %(payload)s::jsonb);

-- name: bench_naive_read_since
-- A reader that trusts sequence_number order alone (what a plain log offers): it skips
-- events that commit after a higher number was read.
SELECT sequence_number, event_id
FROM core.event_log
WHERE tipo = %(tipo)s AND sequence_number > %(apos)s
ORDER BY sequence_number
LIMIT 1000;
-- name: bench_geocode_results
-- How the address demands of a geocode bench ended, by method.
SELECT metodo_resolucao, count(*) AS n FROM d2.resolucoes_geo GROUP BY 1;

-- name: bench_quality_events_insert
-- The address corpus's demands, published as D-1b does (plain INSERT): one per element of the arrays, with the given event and demanda ids, entidades_extraidas and coordenadas_validadas (null: no GPS).
INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
SELECT e.event_id, 'demanda.normalizada', '1.2.0', 'D-1b', NULL,
       jsonb_build_object(
           'demanda_id', e.demanda_id,
           'titulo', 'Buraco na rua',
           'descricao_limpa', 'Há um buraco grande na rua principal',
           'tipo_midia_processada', 'texto',
           'coordenadas_validadas', e.gps,
           'confianca_normalizacao', 0.9,
           'origem_normalizacao', 'automatico',
           'conteudo_suspeito', false,
           'entidades_extraidas', e.entidades
       )
FROM unnest(%(event_ids)s::uuid[], %(demanda_ids)s::uuid[], %(entidades)s::jsonb[],
            %(gps)s::jsonb[]) AS e (event_id, demanda_id, entidades, gps);

-- name: bench_quality_results
-- What D-2 answered for each event of the corpus: its resolution (UC, method, confidence, chain), or nulls; and whether the event reached a terminal state.
SELECT e.event_id, r.unidade_civica_id, r.metodo_resolucao, r.confianca_geo, r.cadeia_ucs,
       r.endereco_geocodificado, u.nome AS uc_nome,
       coalesce(u.metadados->>'codigo_bairro', u.metadados->>'codigo_municipio',
                u.metadados->>'codigo_uf') AS uc_codigo,
       p.event_id IS NOT NULL AS processado
FROM unnest(%(event_ids)s::uuid[]) AS e (event_id)
LEFT JOIN d2.resolucoes_geo r ON r.event_id = e.event_id
LEFT JOIN core.uc_polygons u ON u.id = r.unidade_civica_id
LEFT JOIN d2.eventos_processados p ON p.event_id = e.event_id;

-- name: bench_quality_steps_exists
-- Whether d2.v_geocodificacoes (precision, ladder step and searches of each address resolution) is installed.
SELECT to_regclass('d2.v_geocodificacoes') IS NOT NULL AS existe;

-- name: bench_quality_steps
-- The precision, ladder step and Nominatim searches of the corpus's address resolutions.
SELECT event_id, precisao, passo, consultas
FROM d2.v_geocodificacoes
WHERE event_id = ANY(%(event_ids)s::uuid[]);

-- name: bench_quality_discards
-- Why the geocoding stage discarded each of the corpus's addresses (NULL: resolved), the step that answered and what it understood of the text.
SELECT event_id, motivo, passo, endereco_entendido
FROM d2.geocodificacoes
WHERE event_id = ANY(%(event_ids)s::uuid[]);

-- name: bench_delete_held_names
-- A corpus's own rows' names taken out of d2.cep_nomes (d2/bench/geocode_quality_corpora.py): the reader is judged on what it reads, not on finding the row a text was drawn from.
DELETE FROM d2.cep_nomes n
USING unnest(%(codigos)s::text[], %(nomes)s::text[], %(tipos)s::text[]) AS r (codigo, nome_busca, tipo),
      core.uc_polygons u
WHERE u.nivel = 4 AND u.metadados->>'codigo_municipio' = r.codigo
  AND n.municipio_uc_id = u.unidade_civica_id AND n.nome_busca = r.nome_busca AND n.tipo = r.tipo;

-- name: bench_one_word_municipio_names
-- The territory's município names of one word (d2/bench/geocode_reading.py): what a hostile text of town names is drawn from.
SELECT DISTINCT nome FROM core.uc_polygons
WHERE nivel = 4 AND strpos(nome, ' ') = 0
ORDER BY nome;

-- name: bench_processed
-- The events a drain handled (d2 bench process: the template holds none), and when its
-- first batch committed, in seconds since the epoch.
SELECT count(*) AS n, extract(epoch FROM min(processado_em)) AS primeiro
FROM d2.eventos_processados;
