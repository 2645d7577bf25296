-- name: geocoder_places
-- The address ladder's reading of a round (d2/geocoder/places.py), one statement: the
-- territory's names in each distinct place text (d2.candidatos_territorio; fonte
-- 'territorio'), then, against the municípios each address names (or its CEP's), the
-- names d2.cep_nomes gives them: every run of up to 8 words of each place text that is
-- a bairro or street of one of them, and the address's street (fonte 'cep', lugar -1);
-- and whether each of those municípios that has a homonym among them has bairros and
-- streets in d2.ceps at all (fonte 'dados': a name missing there says something only
-- when it has). Words are
-- counted as d2.candidatos_territorio counts them (inicio/fim).
WITH c AS MATERIALIZED (
    SELECT * FROM d2.candidatos_territorio(
        %(ordens)s::integer[], %(segmentos)s::integer[], %(textos)s::text[])
),
onde AS (
    SELECT o.endereco, o.lugar, o.texto
    FROM unnest(%(enderecos)s::integer[], %(lugares)s::integer[], %(indices)s::integer[])
        AS o (endereco, lugar, texto)
),
municipios AS MATERIALIZED (
    SELECT DISTINCT o.endereco, c.unidade_civica_id AS municipio
    FROM onde o
    JOIN c ON c.ordem = o.texto
    WHERE c.nivel = 4
    UNION
    SELECT p.endereco, l.municipio_uc_id
    FROM unnest(%(cep_enderecos)s::integer[], %(ceps)s::bpchar[]) AS p (endereco, cep)
    JOIN d2.ceps x ON x.cep = p.cep
    JOIN d2.cep_localidades l ON l.id = x.localidade_id
    WHERE l.municipio_uc_id IS NOT NULL
),
palavras AS MATERIALIZED (
    SELECT t.ordem,
           (string_to_array(btrim(regexp_replace(
                regexp_replace(
                    regexp_replace(lower(unaccent(left(t.texto, 300))), '[''`´’]', '', 'g'),
                    '[^a-z0-9]+', ' ', 'g'),
                '\s+', ' ', 'g')), ' '))[1:24] AS w
    FROM unnest(%(ordens)s::integer[], %(textos)s::text[]) AS t (ordem, texto)
),
termos AS MATERIALIZED (
    SELECT p.ordem, i AS inicio, f AS fim, array_to_string(p.w[i:f], ' ') AS termo
    FROM palavras p
    CROSS JOIN generate_series(1, coalesce(cardinality(p.w), 0)) AS i
    CROSS JOIN generate_series(i, least(cardinality(p.w), i + 7)) AS f
    WHERE p.w <> '{}' AND p.w <> '{""}'
),
-- Each (município, words) pair one probe of the primary key (the LIMIT keeps the
-- planner from reading a município's every name to merge them).
nomes AS (
    SELECT o.endereco, o.lugar, t.inicio, t.fim, n.tipo, m.municipio AS municipio_uc_id,
           n.ceps
    FROM onde o
    JOIN municipios m ON m.endereco = o.endereco
    JOIN termos t ON t.ordem = o.texto
    CROSS JOIN LATERAL (
        SELECT x.tipo, x.ceps FROM d2.cep_nomes x
        WHERE x.municipio_uc_id = m.municipio AND x.nome_busca = t.termo
        LIMIT 2
    ) AS n
    UNION ALL
    SELECT r.endereco, -1, 1, 1, n.tipo, n.municipio_uc_id, n.ceps
    FROM unnest(%(rua_enderecos)s::integer[], %(ruas)s::text[]) AS r (endereco, rua)
    JOIN municipios m ON m.endereco = r.endereco
    JOIN d2.cep_nomes n
      ON n.municipio_uc_id = m.municipio AND n.nome_busca = d2.nome_busca(r.rua)
     AND n.tipo = 'logradouro'
),
-- Only homonyms need it: a município whose name another município of the address has.
homonimos AS (
    SELECT DISTINCT o.endereco, c.unidade_civica_id AS municipio
    FROM onde o
    JOIN c ON c.ordem = o.texto AND c.nivel = 4
    WHERE EXISTS (
        SELECT 1 FROM onde o2 JOIN c c2 ON c2.ordem = o2.texto AND c2.nivel = 4
        WHERE o2.endereco = o.endereco AND c2.nome = c.nome
          AND c2.unidade_civica_id <> c.unidade_civica_id
    )
),
dados AS (
    SELECT DISTINCT m.municipio, k.tipo
    FROM homonimos m
    CROSS JOIN (VALUES ('bairro'), ('logradouro')) AS k (tipo)
    CROSS JOIN LATERAL (
        SELECT 1 FROM d2.cep_nomes n
        WHERE n.municipio_uc_id = m.municipio AND n.tipo = k.tipo
        LIMIT 1
    ) AS tem
)
SELECT 'territorio' AS fonte, c.ordem, c.segmento AS lugar, c.inicio, c.fim,
       c.unidade_civica_id::text AS unidade_civica_id, c.nivel, c.nome,
       c.cadeia_ucs::text[] AS cadeia_ucs, c.exato, NULL AS tipo, NULL::integer AS ceps
FROM c
UNION ALL
SELECT 'cep', n.endereco, n.lugar, n.inicio, n.fim, n.municipio_uc_id::text, NULL, NULL,
       NULL, NULL, n.tipo, n.ceps
FROM nomes n
UNION ALL
SELECT 'dados', NULL, NULL, NULL, NULL, d.municipio::text, NULL, NULL, NULL, NULL, d.tipo,
       NULL
FROM dados d;

-- name: geocoder_points_on_surface
-- A point inside each UC's polygon (the published point of a resolution by inference),
-- from the mirror; the smallest polygon id wins where a UC has several rows.
SELECT DISTINCT ON (unidade_civica_id) unidade_civica_id::text AS unidade_civica_id,
       ST_Y(ST_PointOnSurface(geom)) AS lat, ST_X(ST_PointOnSurface(geom)) AS lng
FROM d2.mirror_uc
WHERE unidade_civica_id = ANY(%(ids)s::uuid[])
ORDER BY unidade_civica_id, uc_polygon_id;

-- name: geocoder_points_places
-- The address ladder's check of geocoded points (d2/geocoder/ladder_rules.py): the UC holding
-- each point, its chain, and the município in that chain (mirror levels), so a point is
-- judged against the place the text names.
SELECT r.ordem, r.unidade_civica_id::text AS unidade_civica_id, r.nivel_minimo_resolvido,
       r.cadeia_ucs::text[] AS cadeia_ucs,
       (SELECT m.unidade_civica_id::text FROM d2.mirror_uc m
        WHERE m.unidade_civica_id = ANY(r.cadeia_ucs) AND m.nivel = 4
        ORDER BY m.unidade_civica_id LIMIT 1) AS municipio
FROM d2.resolver_territorios(%(lats)b::double precision[], %(lngs)b::double precision[]) r;

-- name: geocoder_street_fix
-- A street the geocoder does not know as written, among the CEP streets of the município
-- decided (d2.ceps, through its locality): the most similar by trigrams (names as
-- d2.ceps.logradouro_busca keeps them), its score and the next best's, per address.
WITH pedidos AS (
    SELECT p.ordem, p.municipio, p.rua
    FROM unnest(%(ordens)s::integer[], %(municipios)s::uuid[], %(ruas)s::text[])
        AS p (ordem, municipio, rua)
),
ruas AS (
    SELECT DISTINCT p.ordem, p.rua, c.logradouro, c.logradouro_busca
    FROM pedidos p
    JOIN d2.cep_localidades l ON l.municipio_uc_id = p.municipio
    JOIN d2.ceps c ON c.localidade_id = l.id
    WHERE c.logradouro_busca <> ''
),
notas AS (
    SELECT r.ordem, r.logradouro, similarity(r.logradouro_busca, r.rua) AS nota
    FROM ruas r
),
ordenadas AS (
    SELECT n.ordem, n.logradouro, n.nota,
           row_number() OVER w AS pos, lead(n.nota) OVER w AS segunda
    FROM notas n
    WINDOW w AS (PARTITION BY n.ordem ORDER BY n.nota DESC, n.logradouro)
)
SELECT ordem, logradouro, nota, segunda FROM ordenadas WHERE pos = 1;

-- name: geocoder_park
-- Address demands the handler parks for the geocoding stage (a replay parks nothing twice).
INSERT INTO d2.geocodificacoes_pendentes (event_id, demanda_id, sequence_number)
SELECT r.event_id, r.demanda_id, r.sequence_number
FROM unnest(%(event_ids)s::uuid[], %(demanda_ids)s::uuid[], %(seqs)s::bigint[])
    AS r (event_id, demanda_id, sequence_number)
ON CONFLICT (event_id) DO NOTHING;

-- name: geocoder_due
-- The parked demands due for a try, the longest due first (a retried one waits behind
-- those parked before it fell due again, never at the head of every round); only the
-- leading worker runs the geocoding stage, so no row lock is needed.
SELECT event_id, tentativas, falhas
FROM d2.geocodificacoes_pendentes
WHERE proxima_tentativa <= clock_timestamp()
ORDER BY proxima_tentativa, sequence_number
LIMIT %(limite)s;

-- name: geocoder_orphans
-- Parked rows whose event is no longer in the log (nothing to geocode: they leave).
DELETE FROM d2.geocodificacoes_pendentes p
WHERE NOT EXISTS (SELECT 1 FROM d2.eventos e WHERE e.event_id = p.event_id)
RETURNING p.event_id;

-- name: geocoder_postpone
-- The geocoder did not answer: try again after a backoff (seconds per row); a failure
-- while the geocoder was answering counts against the address (falhas).
UPDATE d2.geocodificacoes_pendentes p
SET tentativas = p.tentativas + 1,
    falhas = p.falhas + r.falha::integer,
    proxima_tentativa = clock_timestamp() + make_interval(secs => r.espera_s),
    ultimo_erro = left(r.erro, 200)
FROM unnest(%(event_ids)s::uuid[], %(esperas)s::double precision[], %(erros)s::text[],
            %(falhas)s::boolean[])
    AS r (event_id, espera_s, erro, falha)
WHERE p.event_id = r.event_id;

-- name: geocoder_record
-- What the address ladder understood and how it answered, one row per address demand,
-- in the transaction of its terminal state (a replay writes nothing twice).
INSERT INTO d2.geocodificacoes
    (event_id, demanda_id, precisao, passo, endereco_entendido, consultas, motivo)
SELECT r.event_id, r.demanda_id, r.precisao, r.passo, r.entendido, r.consultas, r.motivo
FROM jsonb_to_recordset(%(rows)s::jsonb) AS r (
    event_id uuid, demanda_id uuid, precisao text, passo text, entendido jsonb,
    consultas integer, motivo text
)
ON CONFLICT (event_id) DO NOTHING;

-- name: geocoder_remove
-- The rows whose events reached a terminal state (in that same transaction).
DELETE FROM d2.geocodificacoes_pendentes WHERE event_id = ANY(%(event_ids)s::uuid[]);

-- name: geocoder_next
-- When the next parked demand falls due (NULL: none parked), in seconds from now.
SELECT greatest(0, extract(epoch FROM min(proxima_tentativa) - clock_timestamp()))::float8
       AS em_s, count(*) AS total
FROM d2.geocodificacoes_pendentes;

-- name: geocoder_list
-- `d2 geocodificacoes list`: the parked demands, oldest first (no address: it is in the log).
SELECT event_id, demanda_id, sequence_number, tentativas, falhas, proxima_tentativa,
       ultimo_erro, criado_em
FROM d2.geocodificacoes_pendentes
ORDER BY sequence_number
LIMIT %(limite)s;

-- name: geocoder_now
-- `d2 geocodificacoes retry`: these (or all, given NULL) parked demands are due now.
UPDATE d2.geocodificacoes_pendentes
SET proxima_tentativa = clock_timestamp()
WHERE %(event_ids)s::uuid[] IS NULL OR event_id = ANY(%(event_ids)s::uuid[])
RETURNING event_id;

-- name: geocoder_summary
-- `d2 status`: how many address demands wait, the oldest, the most tries.
SELECT count(*) AS total, min(criado_em) AS mais_antiga, max(tentativas) AS tentativas_max
FROM d2.geocodificacoes_pendentes;

-- name: nominatim_import_record
-- A `d2 nominatim import` that completed.
INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s)
VALUES (%(arquivo)s, %(bytes)s, %(duracao_s)s)
RETURNING id;

-- name: nominatim_import_last
-- The latest import (its id is the address cache's generation).
SELECT id, arquivo, bytes, duracao_s, concluida_em
FROM d2.nominatim_importacoes
ORDER BY id DESC
LIMIT 1;

-- name: nominatim_exists
-- Whether the default Nominatim database exists on this server, or `d2 nominatim import`
-- ever built one here (then it is expected, even while an import rebuilds it).
SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = %(banco)s) AS existe,
       EXISTS (SELECT 1 FROM d2.nominatim_importacoes) AS importado;
