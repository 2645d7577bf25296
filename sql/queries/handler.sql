-- name: resolucoes_by_event_ids
-- Idempotency (handler step 1): resolutions already stored for these events. The ids
-- travel as a binary parameter: psycopg writes a text array of uuids element by element,
-- with a regex each, several times slower for a batch of 500.
-- em_conflito: the demanda is in an undecided conflict (d2.conflitos_demanda), so its
-- answer is not republished.
SELECT g.id, g.demanda_id, g.unidade_civica_id, g.nivel_minimo_resolvido, g.cadeia_ucs,
       g.metodo_resolucao, g.confianca_geo, g.coordenadas_lat, g.coordenadas_lng, g.event_id,
       g.correlacao_id,
       EXISTS (SELECT 1 FROM d2.conflitos_demanda c
               WHERE c.demanda_id = g.demanda_id AND c.decidido_em IS NULL) AS em_conflito
FROM d2.resolucoes_geo g
WHERE g.event_id = ANY(%(ids)b::uuid[]);

-- name: resolucoes_insert
-- Handler step 5, set-based. A demanda already resolved or pending review under another
-- event is not inserted (the caller sends it to the dead letters); RETURNING says which were.
-- The row's id is made here: nothing reads it before it is stored.
-- One binary array per column (the uuids as text, each chain as an array literal): the
-- database takes them apart for ~3.5 µs less per row than a JSON document of the rows.
INSERT INTO d2.resolucoes_geo (
    id, demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs,
    metodo_resolucao, confianca_geo, coordenadas_lat, coordenadas_lng, event_id, correlacao_id,
    endereco_original, endereco_geocodificado
)
SELECT gen_random_uuid(), r.demanda_id::uuid, r.unidade_civica_id::uuid,
       r.nivel_minimo_resolvido, r.cadeia_ucs::uuid[], r.metodo_resolucao, r.confianca_geo,
       r.coordenadas_lat, r.coordenadas_lng, r.event_id::uuid, r.correlacao_id::uuid,
       r.endereco_original, r.endereco_geocodificado
FROM unnest(
    %(demanda_id)b::text[], %(unidade_civica_id)b::text[], %(nivel_minimo_resolvido)b::integer[],
    %(cadeia_ucs)b::text[], %(metodo_resolucao)b::text[], %(confianca_geo)b::text[],
    %(coordenadas_lat)b::double precision[], %(coordenadas_lng)b::double precision[],
    %(event_id)b::text[], %(correlacao_id)b::text[],
    %(endereco_original)s::text[], %(endereco_geocodificado)s::text[]
) AS r (
    demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs, metodo_resolucao,
    confianca_geo, coordenadas_lat, coordenadas_lng, event_id, correlacao_id,
    endereco_original, endereco_geocodificado
)
WHERE NOT EXISTS (
    SELECT 1 FROM d2.revisoes_geo_pendentes p
    WHERE p.demanda_id = r.demanda_id::uuid AND p.event_id <> r.event_id::uuid
)
ON CONFLICT (demanda_id) DO NOTHING
-- As text: the caller compares with the ids it sent, and building 500 uuid objects to
-- do so cost ~3 µs per event.
RETURNING event_id::text AS event_id;

-- name: demanda_holders
-- The event holding each of these demandas: its resolution, or its pending review (to
-- tell a producer's retry from a conflict, by comparing the two events' content).
SELECT demanda_id, event_id, 'resolucao' AS como
FROM d2.resolucoes_geo WHERE demanda_id = ANY(%(ids)s::uuid[])
UNION ALL
SELECT demanda_id, event_id, 'revisao'
FROM d2.revisoes_geo_pendentes WHERE demanda_id = ANY(%(ids)s::uuid[]);

-- name: conflicts_insert
-- Events whose demanda another event holds with other content: their terminal state
-- (idempotent by event_id: a replay records nothing twice).
INSERT INTO d2.conflitos_demanda (event_id, demanda_id, sequence_number)
SELECT r.event_id, r.demanda_id, r.seq
FROM unnest(%(event_ids)s::uuid[], %(demanda_ids)s::uuid[], %(seqs)s::bigint[])
    AS r (event_id, demanda_id, seq)
ON CONFLICT (event_id) DO NOTHING;

-- name: revisoes_insert
-- Handler step 4, no polygon: the manual review queue, set-based. RETURNING says which
-- rows are this event's (inserted now, or already there from an earlier pass, or closed
-- by an operator's discard: a replay of that event does not bring it back).
WITH novas AS (
    INSERT INTO d2.revisoes_geo_pendentes (demanda_id, event_id, coordenadas_lat, coordenadas_lng)
    SELECT r.demanda_id, r.event_id, r.lat, r.lng
    FROM jsonb_to_recordset(%(rows)s::jsonb)
        AS r (demanda_id uuid, event_id uuid, lat double precision, lng double precision)
    WHERE NOT EXISTS (SELECT 1 FROM d2.resolucoes_geo g WHERE g.demanda_id = r.demanda_id)
      AND NOT EXISTS (SELECT 1 FROM d2.revisoes_tratadas t
                      WHERE t.event_id = r.event_id AND t.passo = 'descarte')
    ON CONFLICT DO NOTHING
    RETURNING event_id
)
SELECT event_id FROM novas
UNION
SELECT p.event_id FROM d2.revisoes_geo_pendentes p
WHERE p.event_id = ANY(SELECT (e ->> 'event_id')::uuid FROM jsonb_array_elements(%(rows)s::jsonb) e)
UNION
SELECT t.event_id FROM d2.revisoes_tratadas t
WHERE t.passo = 'descarte'
  AND t.event_id = ANY(SELECT (e ->> 'event_id')::uuid FROM jsonb_array_elements(%(rows)s::jsonb) e);

-- name: revisoes_count
-- How many demandas wait for a human (logged with every new one, spec 4.1).
SELECT count(*) AS n FROM d2.revisoes_geo_pendentes;

-- name: eventos_processados_insert
-- Handler step 7 and the discard paths: the event went through (idempotent by PK). The
-- ids come as binary text arrays, like resolucoes_insert's.
INSERT INTO d2.eventos_processados (event_id, demanda_id)
SELECT r.event_id::uuid, r.demanda_id::uuid
FROM unnest(%(event_ids)b::text[], %(demanda_ids)b::text[]) AS r (event_id, demanda_id)
ON CONFLICT (event_id) DO NOTHING;

-- name: revisoes_near_record
-- The near rule's answers just stored (handler step 5, or a review resolved by
-- `d2 revisoes reprocessar` and the follow-up): the step, the unit's distance and the
-- rule's, in d2.revisoes_tratadas (idempotent by event_id: a replay records nothing twice).
-- revisao_desde: when a queued review waited (NULL for the handler's, answered at once).
INSERT INTO d2.revisoes_tratadas (
    event_id, demanda_id, passo, unidade_civica_id, distancia_m, limite_m,
    coordenadas_lat, coordenadas_lng, revisao_desde
)
SELECT r.event_id, r.demanda_id, 'proximidade', r.unidade_civica_id, r.distancia_m,
       %(limite)s, r.lat, r.lng, r.revisao_desde
FROM jsonb_to_recordset(%(rows)s::jsonb) AS r (
    event_id uuid, demanda_id uuid, unidade_civica_id uuid, distancia_m double precision,
    lat double precision, lng double precision, revisao_desde timestamptz
)
ON CONFLICT (event_id) DO NOTHING;
