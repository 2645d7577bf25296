-- name: ops_status_cursor
-- The consumer's cursor, how many committed events wait after it in the readers'
-- (transacao, sequence) order, when it last moved.
SELECT v.cursor, v.maior_sequencia, v.lag, v.cursor_movido_em,
       (SELECT d2.eventos_apos(v.tipo_evento, p.transacao, p.sequencia)
        FROM d2.consumer_posicao(v.tipo_evento) p
       ) AS eventos_pendentes
FROM d2.v_consumer_lag v
WHERE v.tipo_evento = %(tipo)s;

-- name: ops_status_resolucoes
-- Stored resolutions by level.
SELECT nivel_minimo_resolvido AS nivel, count(*) AS quantidade
FROM d2.resolucoes_geo
GROUP BY nivel_minimo_resolvido
ORDER BY nivel_minimo_resolvido;

-- name: ops_status_discards
-- Processed events with neither a resolution nor a review: discarded for their
-- coordinates (missing, or present but invalid), told apart by the event's payload.
SELECT CASE
           WHEN coalesce(jsonb_typeof(l.payload -> 'coordenadas_validadas'), 'null') = 'null'
           THEN 'sem_coordenadas'
           ELSE 'coordenadas_invalidas'
       END AS motivo,
       count(*) AS quantidade
FROM d2.eventos_processados e
LEFT JOIN d2.eventos l ON l.event_id = e.event_id
WHERE NOT EXISTS (SELECT 1 FROM d2.resolucoes_geo r WHERE r.event_id = e.event_id)
  AND NOT EXISTS (SELECT 1 FROM d2.revisoes_geo_pendentes p WHERE p.event_id = e.event_id)
  -- A review an operator discarded is no discard for its coordinates.
  AND NOT EXISTS (SELECT 1 FROM d2.revisoes_tratadas t WHERE t.event_id = e.event_id)
GROUP BY 1
ORDER BY 1;

-- name: ops_status_overall
-- Single-row facts: the review queue, the mirror, the last activity, the history.
SELECT
    (SELECT count(*) FROM d2.revisoes_geo_pendentes) AS revisoes_pendentes,
    (SELECT min(criado_em) FROM d2.revisoes_geo_pendentes) AS revisao_mais_antiga,
    (SELECT count(*) FROM d2.eventos_processados) AS eventos_processados,
    (SELECT max(processado_em) FROM d2.eventos_processados) AS ultimo_processado_em,
    (
        SELECT max(ultimo_erro_em) FROM d2.dead_letters WHERE consumidor = %(consumidor)s
    ) AS ultimo_dead_letter_em,
    (
        -- The table itself (d2 status runs as the owner): through the barrier view this
        -- would sort every event D-2 ever published instead of one backward index probe.
        SELECT l.publicado_em FROM core.event_log l
        WHERE l.tipo = %(tipo_saida)s AND l.origem = %(origem)s
        ORDER BY l.sequence_number DESC NULLS LAST
        LIMIT 1
    ) AS ultima_publicacao_em,
    s.versao AS mirror_versao,
    s.alterado_em AS mirror_alterado_em,
    (SELECT count(*) FROM core.uc_polygons) AS uc_polygons,
    (SELECT count(*) FROM d2.mirror_uc) AS mirror_uc,
    (SELECT count(*) FROM d2.mirror_uc WHERE reparada) AS mirror_reparadas,
    (SELECT count(*) FROM d2.mirror_rejected) AS mirror_rejeitadas,
    (SELECT count(*) FROM d2.mirror_mudancas) AS mirror_pendentes,
    (SELECT min(registrado_em) FROM d2.mirror_mudancas) AS mirror_pendente_desde,
    (SELECT count(*) FROM d2.resolucoes_geo_historico) AS regeo_alteracoes,
    (SELECT max(alterado_em) FROM d2.resolucoes_geo_historico) AS regeo_ultima_em
FROM d2.mirror_state s;

-- name: ops_status_revisoes_closed
-- Reviews closed without a polygon, by step: the near rule, an operator, a discard.
SELECT passo, count(*) AS quantidade, max(tratado_em) AS ultima_em
FROM d2.revisoes_tratadas
GROUP BY passo
ORDER BY passo;

-- name: ops_status_dead_letters
-- The consumer's dead letters by status.
SELECT status, count(*) AS quantidade
FROM d2.dead_letters
WHERE consumidor = %(consumidor)s
GROUP BY status
ORDER BY status;

-- name: ops_status_ucs
-- UC polygons by level and source (ibge, osm, ...).
SELECT nivel, fonte, count(*) AS quantidade
FROM core.uc_polygons
GROUP BY nivel, fonte
ORDER BY nivel, fonte;

-- name: revisoes_list
-- The review queue, oldest first, with the nearest municipality or bairro and how far
-- it is (a hint for the person who will fix the polygon or the point).
SELECT p.demanda_id, p.event_id, p.coordenadas_lat, p.coordenadas_lng, p.criado_em,
       p.aguardando,
       perto.unidade_civica_id AS uc_proxima_id,
       perto.nome AS uc_proxima_nome,
       perto.nivel AS uc_proxima_nivel,
       round((perto.metros / 1000.0)::numeric, 3) AS uc_proxima_km
FROM d2.v_revisoes_pendentes p
LEFT JOIN LATERAL (
    SELECT m.unidade_civica_id, m.nivel, u.nome,
           ST_Distance(
               m.geom::geography,
               ST_SetSRID(ST_MakePoint(p.coordenadas_lng, p.coordenadas_lat), 4326)::geography
           ) AS metros
    FROM d2.mirror_uc m
    JOIN core.uc_polygons u ON u.id = m.uc_polygon_id
    WHERE m.nivel <= 4
    ORDER BY m.geom <-> ST_SetSRID(ST_MakePoint(p.coordenadas_lng, p.coordenadas_lat), 4326)
    LIMIT 1
) perto ON true
-- Demands queued in one batch share criado_em: the event log's order breaks the tie
-- (the view's sequence_number: an operator's role may not read the log itself).
ORDER BY p.criado_em, p.sequence_number, p.demanda_id
LIMIT %(limite)s;

-- name: map_dead_letters
-- D-2's pending dead letters with what their event says: the demanda_id as written and
-- the coordinates when both are JSON numbers in range (NULL otherwise).
SELECT d.event_id, d.erro, d.ultimo_erro_em,
       CASE WHEN jsonb_typeof(l.payload) = 'object' THEN l.payload ->> 'demanda_id' END
           AS demanda_id,
       CASE WHEN abs(c.lat) <= 90 AND abs(c.lng) <= 180 THEN c.lat::double precision END AS lat,
       CASE WHEN abs(c.lat) <= 90 AND abs(c.lng) <= 180 THEN c.lng::double precision END AS lng
FROM d2.dead_letters d
LEFT JOIN d2.eventos l ON l.event_id = d.event_id
LEFT JOIN LATERAL (
    SELECT CASE WHEN jsonb_typeof(l.payload -> 'coordenadas_validadas' -> 'lat') = 'number'
                THEN (l.payload -> 'coordenadas_validadas' ->> 'lat')::numeric END AS lat,
           CASE WHEN jsonb_typeof(l.payload -> 'coordenadas_validadas' -> 'lng') = 'number'
                THEN (l.payload -> 'coordenadas_validadas' ->> 'lng')::numeric END AS lng
    WHERE jsonb_typeof(l.payload) = 'object'
      AND jsonb_typeof(l.payload -> 'coordenadas_validadas') = 'object'
) c ON true
WHERE d.consumidor = %(consumidor)s AND d.status = 'pendente'
ORDER BY d.id
LIMIT %(limite)s;

-- name: map_resolucoes
-- The latest resolutions with their UC's name and level.
SELECT r.demanda_id, r.event_id, r.coordenadas_lat AS lat, r.coordenadas_lng AS lng,
       r.nivel_minimo_resolvido AS nivel, r.unidade_civica_id, uc.nome AS uc_nome, r.criado_em
FROM d2.resolucoes_geo r
LEFT JOIN LATERAL (
    SELECT u.nome FROM core.uc_polygons u
    WHERE u.unidade_civica_id = r.unidade_civica_id ORDER BY u.id LIMIT 1
) uc ON true
ORDER BY r.criado_em DESC, r.id
LIMIT %(limite)s;

-- name: map_poligonos
-- The level ≤ 4 UCs nearest to each given point (three per point, at most 300 in all),
-- simplified for display, as GeoJSON.
WITH perto AS (
    SELECT DISTINCT m.uc_polygon_id
    FROM unnest(%(lats)s::double precision[], %(lngs)s::double precision[]) AS p (lat, lng)
    CROSS JOIN LATERAL (
        SELECT m.uc_polygon_id
        FROM d2.mirror_uc m
        WHERE m.nivel <= 4
        ORDER BY m.geom <-> ST_SetSRID(ST_MakePoint(p.lng, p.lat), 4326)
        LIMIT 3
    ) m
)
SELECT m.unidade_civica_id, m.nivel, u.nome,
       ST_AsGeoJSON(
           ST_SimplifyPreserveTopology(m.geom, greatest(0.00005, sqrt(ST_Area(m.geom)) / 400)),
           5
       )::jsonb AS geometria
FROM perto
JOIN d2.mirror_uc m ON m.uc_polygon_id = perto.uc_polygon_id
JOIN core.uc_polygons u ON u.id = m.uc_polygon_id
ORDER BY m.nivel DESC, m.unidade_civica_id
LIMIT 300;

-- name: ops_status_territorio
-- Citizen-drawn polygons by decision, with the alternatives awaiting a moderator.
SELECT decisao, count(*) AS quantidade,
       count(*) FILTER (WHERE moderacao = 'pendente') AS pendentes
FROM d2.territorio_submissoes
GROUP BY decisao
ORDER BY decisao;

-- name: revisao_atribuir
-- An operator answers a review at a unit (d2.revisao_atribuir: the resolution, the
-- record, the review gone, the publication, in the caller's transaction).
SELECT * FROM d2.revisao_atribuir(%(demanda_id)s::uuid, %(uc)s::uuid, %(motivo)s, %(por)s);

-- name: revisao_descartar
-- An operator closes a review with no answer (d2.revisao_descartar).
SELECT * FROM d2.revisao_descartar(%(demanda_id)s::uuid, %(motivo)s, %(por)s);

-- name: map_revisoes_closed
-- The latest reviews closed without a polygon (d2 map): the step, the unit, its
-- distance, who, why and when.
SELECT t.demanda_id, t.event_id, t.passo, t.coordenadas_lat AS lat, t.coordenadas_lng AS lng,
       t.unidade_civica_id, t.uc_nome, t.distancia_m, t.tratado_por, t.motivo, t.tratado_em
FROM d2.v_revisoes_tratadas t
LIMIT %(limite)s;
