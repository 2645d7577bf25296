-- name: regeo_page
-- One page of stored resolutions (keyset by id) matching the filters of a full pass:
-- how many, the last id, and those whose answer differs today (d2.regeo_comparar, one
-- batch resolver call per page). Always at least one row while the page is not empty.
WITH pagina AS (
    SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}') AS ids
    FROM (
        SELECT g.id
        FROM d2.resolucoes_geo g
        WHERE g.id > %(apos)s::uuid
          AND (
              %(uc)s::uuid IS NULL
              OR g.unidade_civica_id = %(uc)s::uuid
              OR %(uc)s::uuid = ANY(g.cadeia_ucs)
          )
          AND (%(desde)s::date IS NULL OR g.criado_em >= %(desde)s::date)
        ORDER BY g.id
        LIMIT %(lote)s
    ) s
)
SELECT cardinality(p.ids) AS examinadas, p.ids[cardinality(p.ids)] AS ultimo, d.*
FROM pagina p
LEFT JOIN LATERAL d2.regeo_comparar(p.ids) d ON true
WHERE cardinality(p.ids) > 0;

-- name: regeo_pending_areas
-- The areas the mirror changed that the follow-up has not yet looked at.
SELECT count(*) AS areas, max(id) AS ate, bool_or(geom IS NULL) AS tudo
FROM d2.regeo_areas;

-- name: regeo_expand
-- Turns the changed areas up to an id into the queue of stored points inside them
-- (resolutions, and pending reviews inside them or within the near rule's reach of
-- them, alcance_graus: a new polygon near a review may answer it), in one transaction:
-- a crash leaves either the areas or the queue. Driven by the areas through the GIST indexes on the points, so it
-- reads only the points inside them; with tudo, every point (a rebuild, or so many
-- areas that the index would not pay).
WITH areas AS (
    DELETE FROM d2.regeo_areas a WHERE a.id <= %(ate)s RETURNING a.geom
),
resolucoes AS (
    INSERT INTO d2.regeo_fila (resolucao_id)
    SELECT r.id FROM d2.resolucoes_geo r WHERE %(tudo)s
    UNION
    SELECT r.id
    FROM areas a
    JOIN d2.resolucoes_geo r
      ON ST_Intersects(a.geom, ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326))
    WHERE NOT %(tudo)s AND a.geom IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING 1
),
revisoes AS (
    INSERT INTO d2.regeo_fila_revisoes (demanda_id)
    SELECT p.demanda_id FROM d2.revisoes_geo_pendentes p WHERE %(tudo)s
    UNION
    SELECT p.demanda_id
    FROM areas a
    JOIN d2.revisoes_geo_pendentes p
      ON ST_DWithin(a.geom, ST_SetSRID(ST_MakePoint(p.coordenadas_lng, p.coordenadas_lat), 4326),
                    %(alcance_graus)s)
    WHERE NOT %(tudo)s AND a.geom IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING 1
)
SELECT (SELECT count(*) FROM areas) AS areas,
       (SELECT count(*) FROM resolucoes) AS resolucoes,
       (SELECT count(*) FROM revisoes) AS revisoes;

-- name: regeo_queue_batch
-- Takes one chunk of the follow-up's queue (deleted in the caller's transaction, so a
-- crash gives it back) and answers which of those resolutions differ today.
WITH lote AS (
    DELETE FROM d2.regeo_fila f
    WHERE f.resolucao_id IN (
        SELECT q.resolucao_id FROM d2.regeo_fila q
        ORDER BY q.resolucao_id
        LIMIT %(lote)s
        FOR UPDATE SKIP LOCKED
    )
    RETURNING f.resolucao_id
),
pagina AS (
    SELECT coalesce(array_agg(l.resolucao_id ORDER BY l.resolucao_id), '{}') AS ids FROM lote l
)
SELECT cardinality(p.ids) AS examinadas, d.*
FROM pagina p
LEFT JOIN LATERAL d2.regeo_comparar(p.ids) d ON true
WHERE cardinality(p.ids) > 0;

-- name: regeo_queue_revisoes_batch
-- Takes one chunk of queued reviews (deleted in the caller's transaction).
DELETE FROM d2.regeo_fila_revisoes f
WHERE f.demanda_id IN (
    SELECT q.demanda_id FROM d2.regeo_fila_revisoes q
    ORDER BY q.demanda_id
    LIMIT %(lote)s
    FOR UPDATE SKIP LOCKED
)
RETURNING f.demanda_id;

-- name: revisoes_lock_ids
-- The queued reviews still pending, locked; one another run holds is skipped, and so is
-- a demanda in an undecided conflict (nothing is published for it).
SELECT p.demanda_id, p.event_id, p.coordenadas_lat, p.coordenadas_lng, p.criado_em
FROM d2.revisoes_geo_pendentes p
WHERE p.demanda_id = ANY(%(ids)s::uuid[])
  AND NOT EXISTS (SELECT 1 FROM d2.conflitos_demanda c
                  WHERE c.demanda_id = p.demanda_id AND c.decidido_em IS NULL)
ORDER BY p.demanda_id
FOR UPDATE OF p SKIP LOCKED;

-- name: regeo_pending
-- What the follow-up still has to do (d2 status, metrics).
SELECT (SELECT count(*) FROM d2.regeo_areas) AS areas,
       (SELECT count(*) FROM d2.regeo_fila) AS resolucoes,
       (SELECT count(*) FROM d2.regeo_fila_revisoes) AS revisoes,
       (SELECT min(criado_em) FROM d2.regeo_areas) AS area_mais_antiga_em;

-- name: revisoes_lock
-- One chunk of the review queue, in demanda_id order after a key, locked; rows another
-- run (or the worker) holds are skipped, not waited for, and so are demandas in an
-- undecided conflict (nothing is published for them).
SELECT p.demanda_id, p.event_id, p.coordenadas_lat, p.coordenadas_lng, p.criado_em
FROM d2.revisoes_geo_pendentes p
WHERE p.demanda_id > %(apos)s::uuid
  AND NOT EXISTS (SELECT 1 FROM d2.conflitos_demanda c
                  WHERE c.demanda_id = p.demanda_id AND c.decidido_em IS NULL)
ORDER BY p.demanda_id
LIMIT %(lote)s
FOR UPDATE OF p SKIP LOCKED;

-- name: revisoes_store
-- Resolutions for reviews that today's polygons (or the near rule: confianca media)
-- resolve, as the handler writes them; correlacao_id from the original event, else the
-- demanda_id. A demanda that already has a resolution keeps it.
INSERT INTO d2.resolucoes_geo (
    id, demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs,
    metodo_resolucao, confianca_geo, coordenadas_lat, coordenadas_lng, event_id, correlacao_id
)
SELECT gen_random_uuid(), r.demanda_id, r.unidade_civica_id, r.nivel_minimo_resolvido,
       r.cadeia_ucs, 'gps', r.confianca, r.lat, r.lng, r.event_id,
       coalesce(l.correlacao_id, r.demanda_id)
FROM jsonb_to_recordset(%(rows)s::jsonb) AS r (
    demanda_id uuid, event_id uuid, unidade_civica_id uuid, nivel_minimo_resolvido integer,
    cadeia_ucs uuid[], lat double precision, lng double precision, confianca text
)
LEFT JOIN d2.eventos l ON l.event_id = r.event_id
ON CONFLICT (demanda_id) DO NOTHING
RETURNING id, demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs,
          metodo_resolucao, confianca_geo, coordenadas_lat, coordenadas_lng, event_id,
          correlacao_id;

-- name: revisoes_delete
-- Reviews whose own event now has a resolution leave the queue.
DELETE FROM d2.revisoes_geo_pendentes p
WHERE p.demanda_id = ANY(%(ids)s::uuid[])
  AND EXISTS (
      SELECT 1 FROM d2.resolucoes_geo r
      WHERE r.demanda_id = p.demanda_id AND r.event_id = p.event_id
  )
RETURNING p.demanda_id;

-- name: regeo_apply
-- Rewrites the given resolutions whose answer still differs today (checked again under
-- the row lock), returning the new row and the answer it replaced. A demanda in an
-- undecided conflict keeps its answer, and nothing is published for it (an
-- operator decides which event is the demand's; deciding it queues the resolution again).
WITH alvo AS (
    SELECT g.id,
           g.unidade_civica_id AS uc_anterior,
           g.nivel_minimo_resolvido AS nivel_anterior,
           g.cadeia_ucs AS cadeia_anterior,
           n.unidade_civica_id AS uc_nova,
           n.nivel_minimo_resolvido AS nivel_novo,
           n.cadeia_ucs AS cadeia_nova
    FROM d2.resolucoes_geo g
    CROSS JOIN LATERAL d2.resolver_territorio(g.coordenadas_lat, g.coordenadas_lng) n
    WHERE g.id = ANY(%(ids)s::uuid[])
      AND (g.unidade_civica_id, g.nivel_minimo_resolvido, g.cadeia_ucs)
          IS DISTINCT FROM (n.unidade_civica_id, n.nivel_minimo_resolvido, n.cadeia_ucs)
      AND NOT EXISTS (SELECT 1 FROM d2.conflitos_demanda c
                      WHERE c.demanda_id = g.demanda_id AND c.decidido_em IS NULL)
    FOR UPDATE OF g
)
UPDATE d2.resolucoes_geo r
SET unidade_civica_id = a.uc_nova,
    nivel_minimo_resolvido = a.nivel_novo,
    cadeia_ucs = a.cadeia_nova
FROM alvo a
WHERE r.id = a.id
RETURNING r.id, r.demanda_id, r.unidade_civica_id, r.nivel_minimo_resolvido, r.cadeia_ucs,
          r.metodo_resolucao, r.confianca_geo, r.coordenadas_lat, r.coordenadas_lng,
          r.event_id, r.correlacao_id,
          a.uc_anterior, a.nivel_anterior, a.cadeia_anterior;

-- name: regeo_history
-- The previous answers of the rows just rewritten, why, and the event published for each.
INSERT INTO d2.resolucoes_geo_historico (
    resolucao_id, demanda_id, unidade_civica_id_anterior, nivel_anterior, cadeia_ucs_anterior,
    unidade_civica_id_nova, nivel_novo, cadeia_ucs_nova, motivo, mirror_versao,
    evento_publicado_id
)
SELECT h.resolucao_id, h.demanda_id, h.uc_anterior, h.nivel_anterior, h.cadeia_anterior,
       h.uc_nova, h.nivel_novo, h.cadeia_nova,
       CASE
           WHEN h.nivel_novo < h.nivel_anterior THEN 'nivel_mais_fino'
           WHEN h.nivel_novo > h.nivel_anterior THEN 'nivel_mais_amplo'
           WHEN h.uc_nova <> h.uc_anterior THEN 'outra_uc_mesmo_nivel'
           ELSE 'cadeia_alterada'
       END,
       (SELECT s.versao FROM d2.mirror_state s),
       h.evento_publicado_id
FROM jsonb_to_recordset(%(rows)s::jsonb) AS h (
    resolucao_id uuid, demanda_id uuid, uc_anterior uuid, nivel_anterior integer,
    cadeia_anterior uuid[], uc_nova uuid, nivel_novo integer, cadeia_nova uuid[],
    evento_publicado_id uuid
);
