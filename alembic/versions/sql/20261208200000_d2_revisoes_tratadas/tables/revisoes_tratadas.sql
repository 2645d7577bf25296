-- How each review was closed without a polygon holding its point (migration
-- 20261208200000; docs/design.md, decision 12): one row per event, keyed like the
-- resolution it produced (by event_id, the handler's idempotency key), so that the
-- spec's tables keep exactly the spec's columns. d2.v_resolucoes shows the step and the
-- distance beside each resolution; d2.v_revisoes_tratadas lists them all.
CREATE TABLE d2.revisoes_tratadas (
    event_id          UUID             NOT NULL,
    demanda_id        UUID             NOT NULL,
    -- proximidade: the near rule answered it (the worker at once, or `d2 revisoes
    -- reprocessar` and the re-georeferencing follow-up for a queued review);
    -- operador: an operator chose the unit (d2.revisao_atribuir);
    -- descarte: an operator closed it with no answer (d2.revisao_descartar).
    passo             VARCHAR(12)      NOT NULL,
    -- The unit answered (NULL for a discard) and its distance from the point in metres
    -- (for operador, how far the chosen unit's polygon lies; NULL if it has none).
    unidade_civica_id UUID,
    distancia_m       DOUBLE PRECISION,
    -- The near rule's distance in force when it answered (D2_REVISAO_DISTANCIA_M).
    limite_m          DOUBLE PRECISION,
    coordenadas_lat   DOUBLE PRECISION NOT NULL,
    coordenadas_lng   DOUBLE PRECISION NOT NULL,
    -- Who closed it by hand, as the operator gave it (`--by`), and the database login
    -- that called the function (session_user: not an argument, so not a claim).
    tratado_por       TEXT,
    usuario_banco     TEXT             NOT NULL DEFAULT session_user,
    -- Why (the operator's words).
    motivo            TEXT,
    -- When the review entered the queue (NULL: answered before it ever waited).
    revisao_desde     TIMESTAMPTZ(2),
    tratado_em        TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT revisoes_tratadas_pkey PRIMARY KEY (event_id),
    CONSTRAINT revisoes_tratadas_passo_check
        CHECK (passo IN ('proximidade', 'operador', 'descarte')),
    CONSTRAINT revisoes_tratadas_unidade_check
        CHECK ((passo = 'descarte') = (unidade_civica_id IS NULL))
);

CREATE INDEX revisoes_tratadas_demanda_id_idx ON d2.revisoes_tratadas (demanda_id);
-- d2 status and the worker's metrics count by step; the map reads the latest first.
CREATE INDEX revisoes_tratadas_passo_idx ON d2.revisoes_tratadas (passo, tratado_em);
