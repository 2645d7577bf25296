-- What the event-synced replica admits and when its breaker stops it: one row, written
-- only by the owner (operators tune it with UPDATE; d2_worker holds nothing on it), read
-- by d2.replica_aplicar itself. A worker's login therefore cannot widen the origins,
-- lift or lower the breaker, or loosen what a proposal may take (docs/mirror.md, "Who
-- may change the territory by events").
CREATE TABLE d2.replica_limites (
    unica BOOLEAN PRIMARY KEY DEFAULT true,
    -- The origins whose uc.poligono_* events the replica reads; any other is refused.
    origens VARCHAR(100)[] NOT NULL DEFAULT ARRAY['D-2']::varchar(100)[],
    -- Past this many removals or takings by proposals within the window, the replica
    -- stops before the next one until `d2 mirror resume`.
    disjuntor_max INTEGER NOT NULL DEFAULT 20,
    disjuntor_janela_s INTEGER NOT NULL DEFAULT 3600,
    -- Stored answers proposals may take within the window, summed: past it, the breaker.
    respostas_janela_max INTEGER NOT NULL DEFAULT 200,
    -- Stored answers one proposal may take (as a drawing may without a moderator); more:
    -- refused.
    respostas_max INTEGER NOT NULL DEFAULT 50,
    -- The share of any other UC's area one proposal may cover; more: refused.
    parte_max DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    -- The mirror pieces (64 vertices at most) one proposal may reach: what bounds the
    -- geometry work of judging it.
    pedacos_max INTEGER NOT NULL DEFAULT 2000,
    CONSTRAINT replica_limites_unica_check CHECK (unica),
    CONSTRAINT replica_limites_disjuntor_check CHECK (disjuntor_max >= 1 AND disjuntor_janela_s >= 1),
    CONSTRAINT replica_limites_respostas_check CHECK (respostas_max >= 0 AND respostas_janela_max >= 0),
    CONSTRAINT replica_limites_parte_max_check CHECK (parte_max BETWEEN 0 AND 1),
    CONSTRAINT replica_limites_pedacos_max_check CHECK (pedacos_max >= 1)
);
