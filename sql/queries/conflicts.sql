-- name: conflicts_list
-- Undecided conflicts (d2 conflicts list): each demanda's events, the one holding it
-- (titular: its answer was stored and published, or it waits in review) and the ones
-- that came with other content (conflitante), with what each says about the place.
WITH abertas AS (
    SELECT c.demanda_id, min(c.criado_em) AS desde
    FROM d2.conflitos_demanda c
    WHERE c.decidido_em IS NULL
    GROUP BY c.demanda_id
    ORDER BY desde, c.demanda_id
    LIMIT %(limite)s
),
membros AS (
    SELECT c.demanda_id, c.event_id, 'conflitante' AS papel, c.criado_em
    FROM d2.conflitos_demanda c JOIN abertas a USING (demanda_id)
    WHERE c.decidido_em IS NULL
    UNION ALL
    SELECT r.demanda_id, r.event_id, 'titular', r.criado_em
    FROM d2.resolucoes_geo r JOIN abertas a USING (demanda_id)
    UNION ALL
    SELECT p.demanda_id, p.event_id, 'titular', p.criado_em
    FROM d2.revisoes_geo_pendentes p JOIN abertas a USING (demanda_id)
)
SELECT m.demanda_id, m.event_id, m.papel, e.origem, e.sequence_number,
       e.payload -> 'coordenadas_validadas' ->> 'lat' AS lat,
       e.payload -> 'coordenadas_validadas' ->> 'lng' AS lng,
       jsonb_typeof(e.payload -> 'entidades_extraidas') = 'object' AS com_endereco,
       g.unidade_civica_id, g.nivel_minimo_resolvido,
       (r.event_id IS NOT NULL) AS em_revisao, m.criado_em
FROM membros m
JOIN abertas a USING (demanda_id)
LEFT JOIN d2.eventos e ON e.event_id = m.event_id
LEFT JOIN d2.resolucoes_geo g ON g.event_id = m.event_id
LEFT JOIN d2.revisoes_geo_pendentes r ON r.event_id = m.event_id
ORDER BY a.desde, m.demanda_id, m.papel DESC, e.sequence_number;

-- name: conflicts_count
-- How many demandas wait for an operator's decision, and how many events came in conflict.
SELECT count(DISTINCT c.demanda_id) AS demandas, count(*) AS eventos
FROM d2.conflitos_demanda c
WHERE c.decidido_em IS NULL;

-- name: conflicts_of_event
-- The demanda of an event in an undecided conflict: one that came in conflict, or the one
-- holding the demanda.
SELECT c.demanda_id
FROM d2.conflitos_demanda c
WHERE c.event_id = %(event_id)s AND c.decidido_em IS NULL
UNION
SELECT h.demanda_id
FROM (SELECT g.demanda_id, g.event_id FROM d2.resolucoes_geo g
      UNION ALL
      SELECT p.demanda_id, p.event_id FROM d2.revisoes_geo_pendentes p) h
WHERE h.event_id = %(event_id)s
  AND EXISTS (SELECT 1 FROM d2.conflitos_demanda c
              WHERE c.demanda_id = h.demanda_id AND c.decidido_em IS NULL);

-- name: conflicts_lock
-- The demanda's conflict rows, locked for the decision (two operators deciding at once
-- take turns; the second finds it decided).
SELECT c.event_id FROM d2.conflitos_demanda c WHERE c.demanda_id = %(demanda_id)s FOR UPDATE;

-- name: conflicts_record_holder
-- The event that held the demanda joins the record; when another is chosen, with the
-- resolution it held (what was published for it).
INSERT INTO d2.conflitos_demanda (event_id, demanda_id, sequence_number, resolucao_anterior)
SELECT %(event_id)s::uuid, %(demanda_id)s::uuid,
       (SELECT e.sequence_number FROM d2.eventos e WHERE e.event_id = %(event_id)s::uuid),
       CASE WHEN %(substituida)s
            THEN (SELECT to_jsonb(g) FROM d2.resolucoes_geo g
                  WHERE g.event_id = %(event_id)s::uuid)
       END
ON CONFLICT (event_id) DO UPDATE
SET resolucao_anterior = EXCLUDED.resolucao_anterior, decidido_em = NULL;

-- name: conflicts_remove_holder
-- The chosen event is not the one holding the demanda: the holder's answer (or review)
-- goes, and with it any re-georeferencing queued for it.
WITH removida AS (
    DELETE FROM d2.resolucoes_geo g
    WHERE g.demanda_id = %(demanda_id)s AND g.event_id = %(event_id)s
    RETURNING g.id
),
fila AS (
    DELETE FROM d2.regeo_fila f USING removida r WHERE f.resolucao_id = r.id
)
DELETE FROM d2.revisoes_geo_pendentes p
WHERE p.demanda_id = %(demanda_id)s AND p.event_id = %(event_id)s;

-- name: conflicts_decide
-- The operator's decision, on every undecided event of the demanda.
UPDATE d2.conflitos_demanda c
SET decidido_em = clock_timestamp(),
    decidido_por = %(por)s,
    decisao = CASE WHEN c.event_id = %(escolhido)s::uuid THEN 'aceito' ELSE 'recusado' END
WHERE c.demanda_id = %(demanda_id)s AND c.decidido_em IS NULL;

-- name: conflicts_requeue
-- The event that held the demanda is chosen: what the territory changed while the
-- conflict held its publications is examined again by the re-georeferencing follow-up.
WITH resolucoes AS (
    INSERT INTO d2.regeo_fila (resolucao_id)
    SELECT g.id FROM d2.resolucoes_geo g WHERE g.demanda_id = %(demanda_id)s
    ON CONFLICT DO NOTHING
)
INSERT INTO d2.regeo_fila_revisoes (demanda_id)
SELECT p.demanda_id FROM d2.revisoes_geo_pendentes p WHERE p.demanda_id = %(demanda_id)s
ON CONFLICT DO NOTHING;
