-- name: geocoder_candidates
-- The territorial inference's candidates for many address segments (see the function).
SELECT ordem, segmento, inicio, fim, unidade_civica_id::text AS unidade_civica_id, nivel,
       nome, cadeia_ucs::text[] AS cadeia_ucs, exato
FROM d2.candidatos_territorio(%(ordens)s::integer[], %(segmentos)s::integer[], %(textos)s::text[]);

-- name: geocoder_points_on_surface
-- A point inside each UC's polygon (the published point of a resolution by inference),
-- from the mirror; the smallest polygon id wins where a UC has several rows.
SELECT DISTINCT ON (unidade_civica_id) unidade_civica_id::text AS unidade_civica_id,
       ST_Y(ST_PointOnSurface(geom)) AS lat, ST_X(ST_PointOnSurface(geom)) AS lng
FROM d2.mirror_uc
WHERE unidade_civica_id = ANY(%(ids)s::uuid[])
ORDER BY unidade_civica_id, uc_polygon_id;

-- name: geocoder_park
-- Address demands the handler parks for the geocoding stage (a replay parks nothing twice).
INSERT INTO d2.geocodificacoes_pendentes (event_id, demanda_id, sequence_number)
SELECT r.event_id, r.demanda_id, r.sequence_number
FROM unnest(%(event_ids)s::uuid[], %(demanda_ids)s::uuid[], %(seqs)s::bigint[])
    AS r (event_id, demanda_id, sequence_number)
ON CONFLICT (event_id) DO NOTHING;

-- name: geocoder_due
-- The parked demands due for a try, oldest events first (only the leading worker runs
-- the geocoding stage, so no row lock is needed; their events are read by bus.ler_eventos).
SELECT event_id, tentativas
FROM d2.geocodificacoes_pendentes
WHERE proxima_tentativa <= clock_timestamp()
ORDER BY sequence_number
LIMIT %(limite)s;

-- name: geocoder_orphans
-- Parked rows whose event is no longer in the log (nothing to geocode: they leave).
DELETE FROM d2.geocodificacoes_pendentes p
WHERE NOT EXISTS (SELECT 1 FROM d2.eventos e WHERE e.event_id = p.event_id)
RETURNING p.event_id;

-- name: geocoder_postpone
-- The geocoder did not answer: try again after a backoff (seconds per row).
UPDATE d2.geocodificacoes_pendentes p
SET tentativas = p.tentativas + 1,
    proxima_tentativa = clock_timestamp() + make_interval(secs => r.espera_s),
    ultimo_erro = left(r.erro, 200)
FROM unnest(%(event_ids)s::uuid[], %(esperas)s::double precision[], %(erros)s::text[])
    AS r (event_id, espera_s, erro)
WHERE p.event_id = r.event_id;

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
SELECT event_id, demanda_id, sequence_number, tentativas, proxima_tentativa, ultimo_erro,
       criado_em
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
