-- Every citizen-drawn polygon received (lugar.cadastrado with tipo_lugar 'poligono_uc';
-- spec 8.5, layer 2), with its decision: nova, confirmacao, alternativa, retida, or
-- rejeitada, and why (a confirmation says why when it waits for a moderator). The history of every version of a community UC: the canonical one is copied
-- to d2.territorio_ucs and core.uc_polygons, the others stay here. Written only by
-- d2.territorio_submeter and d2.territorio_moderar.
CREATE TABLE d2.territorio_submissoes (
    id              UUID PRIMARY KEY,
    -- The lugar.cadastrado event: idempotency, a second call changes nothing.
    event_id        UUID NOT NULL,
    lugar_id        UUID,
    -- As the event claims it: kept as a record, never the key of a limit (a new id costs
    -- a producer nothing).
    autor_id        UUID,
    nome            VARCHAR(255) NOT NULL,
    -- 1 micro-área or 2 bairro (d2.territorio_limites).
    nivel           INTEGER NOT NULL,
    -- The drawing as evaluated (exterior rings made counter-clockwise); only a
    -- rejected one may lack it.
    geom            geometry(MultiPolygon, 4326),
    area_m2         DOUBLE PRECISION,
    -- A self-intersecting drawing repaired (only when the repair keeps its area).
    reparada        BOOLEAN NOT NULL DEFAULT false,
    -- The município of the mirror holding >= 95% of it.
    municipio_uc_id UUID,
    -- The parent by containment: the município for a bairro, the bairro holding 95% of
    -- a micro-área.
    parent_uc_id    UUID,
    decisao         TEXT NOT NULL,
    -- Why it was rejected, or held for a moderator: always for a rejeitada or a retida;
    -- for a version, what it would take when that made it wait (then 'pendente').
    motivo          TEXT,
    -- The UC it created (nova), confirms or offers an alternative to.
    alvo_uc_id      UUID,
    -- Intersection over union with the closest polygon of the same level.
    sobreposicao    DOUBLE PRECISION,
    -- 'pendente' for an alternativa, a retida or a held confirmacao awaiting a
    -- moderator, then aceita or rejeitada (d2 territorio aceitar / rejeitar); NULL when
    -- no moderation is asked.
    moderacao       TEXT,
    moderado_em     TIMESTAMPTZ,
    moderado_por    VARCHAR(255),
    criado_em       TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- Its total intersection area with the UC's other versions (spec 8.5's consensus),
    -- added to as versions arrive (d2.territorio_submeter), recomputed when a moderator
    -- takes one out (d2.territorio_pontuar).
    pontuacao       DOUBLE PRECISION NOT NULL DEFAULT 0,
    -- The stored answers inside what it takes (a new UC: all of it; a version: the new
    -- shape minus the current one) when it was judged: its share of the município's
    -- budgets and ceiling (d2.territorio_julgar) while no moderator reviewed it.
    resolucoes_tomadas BIGINT,
    -- What it takes, as a shape (NULL: nothing) and its area in m² (migration
    -- 20261208100000; rows before it: a nova's whole drawing, nothing for a version).
    geom_tomada     geometry(MultiPolygon, 4326),
    area_tomada_m2  DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT territorio_submissoes_event_id_key UNIQUE (event_id),
    CONSTRAINT territorio_submissoes_moderacao_check
        CHECK (moderacao IN ('pendente', 'aceita', 'rejeitada')),
    CONSTRAINT territorio_submissoes_decisao_check
        CHECK (decisao IN ('nova', 'confirmacao', 'alternativa', 'retida', 'rejeitada')),
    CONSTRAINT territorio_submissoes_check
        CHECK ((decisao NOT IN ('rejeitada', 'retida') OR motivo IS NOT NULL)
               AND (motivo IS NULL OR decisao IN ('rejeitada', 'retida')
                    OR moderacao IS NOT NULL)),
    -- Anything but a rejection has a geometry; anything but a rejection or a held drawing
    -- a moderator has not accepted has a target UC.
    CONSTRAINT territorio_submissoes_check1
        CHECK (decisao = 'rejeitada' OR geom IS NOT NULL),
    CONSTRAINT territorio_submissoes_check2
        CHECK (decisao IN ('rejeitada', 'retida') OR alvo_uc_id IS NOT NULL)
);

-- The versions of one UC: the canonical choice, d2 territorio mostrar.
CREATE INDEX territorio_submissoes_alvo_idx ON d2.territorio_submissoes (alvo_uc_id);
-- The moderators' queue (d2 territorio list), oldest first.
CREATE INDEX territorio_submissoes_pendentes_idx ON d2.territorio_submissoes (criado_em)
    WHERE moderacao = 'pendente';
-- What changes no moderator reviewed took in a município: its budgets and ceiling
-- (d2.territorio_julgar).
CREATE INDEX territorio_submissoes_orcamento_idx
    ON d2.territorio_submissoes (municipio_uc_id, nivel, criado_em)
    WHERE decisao IN ('nova', 'confirmacao') AND moderacao IS NULL;
