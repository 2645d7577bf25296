-- name: geocoder_names_version
-- What the names held in the process (d2/geocoder/places/names.py) are keyed by: the mirror's
-- version and the database's identity.
SELECT s.versao, d.oid::bigint AS base
FROM d2.mirror_state s
JOIN pg_catalog.pg_database d ON d.datname = current_database();

-- name: geocoder_names
-- Every bairro, município and UF name as d2.candidatos_territorio compares them
-- (nome_busca), with its chain, for the misspellings read in the process
-- (d2/geocoder/places/names.py); one row per UC; and whether it is a citizen's drawing (fonte
-- comunitario, as D-2's drawings and the replica's proposals write it): such a name never
-- chooses a município.
SELECT DISTINCT ON (u.unidade_civica_id) u.unidade_civica_id::text AS unidade_civica_id,
       u.nivel, u.nome, u.nome_busca,
       coalesce(cad.cadeia_ucs, d2.cadeia_ucs(u.unidade_civica_id))::text[] AS cadeia_ucs,
       u.fonte = 'comunitario' AS comunitario
FROM core.uc_polygons u
LEFT JOIN d2.mirror_cadeias cad ON cad.unidade_civica_id = u.unidade_civica_id
WHERE u.nivel IN (2, 4, 5) AND u.nome_busca <> ''
ORDER BY u.unidade_civica_id, u.nome_busca;

-- name: geocoder_places
-- The address ladder's reading of a round (d2/geocoder/places/lookup.py), one statement: see
-- the function.
SELECT * FROM d2.lugares_lidos(
    %(ordens)s::integer[], %(textos)s::text[], %(enderecos)s::integer[],
    %(lugares)s::integer[], %(indices)s::integer[], %(cep_enderecos)s::integer[],
    %(ceps)s::bpchar[], %(rua_enderecos)s::integer[], %(ruas)s::text[],
    %(aproximados_enderecos)s::integer[], %(aproximados)s::uuid[],
    %(aproximados_nomes)s::text[]);

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
