-- The answer D-2 gives each demand (spec §2.2): the smallest UC holding its point, the
-- chain above it, how it was found and how sure it is. One row per demanda_id: the
-- business idempotency lives here (spec §2.9), so a replayed event republishes this
-- row instead of resolving again. No CHECKs on confianca_geo, metodo_resolucao or
-- nivel_minimo_resolvido (spec §2.2): the code that fills the row and the Registry's
-- schema at publication guarantee the values. No foreign keys (spec §2.8: isolation).
-- When the territory changes, re-georeferencing (d2/ops/regeo.py) rewrites the row and
-- keeps the previous answer in d2.resolucoes_geo_historico.
CREATE TABLE d2.resolucoes_geo (
    -- Internal id of the resolution.
    id                       UUID             NOT NULL,
    -- The demand in D-1a/D-1b: a logical reference, no constraint (isolation rule).
    demanda_id               UUID             NOT NULL,
    -- The smallest-level UC holding the point.
    unidade_civica_id        UUID             NOT NULL,
    -- Its level (1-7): 4 (município) where there is no bairro polygon.
    nivel_minimo_resolvido   INTEGER          NOT NULL,
    -- The UCs from the resolved one up to the country, in order; an array because the
    -- question is always "which UCs hold this place?".
    cadeia_ucs               UUID[],
    -- gps, endereco (textual address geocoded) or inferencia (a place the text names).
    metodo_resolucao         VARCHAR(20)      NOT NULL,
    -- alta for GPS, media for a geocoded address, baixa for an inference.
    confianca_geo            VARCHAR(10)      NOT NULL,
    -- The point the answer was computed for, kept for audit (and re-georeferencing).
    coordenadas_lat          DOUBLE PRECISION NOT NULL,
    coordenadas_lng          DOUBLE PRECISION NOT NULL,
    -- The demanda.normalizada event that produced the row: idempotency on replay.
    event_id                 UUID             NOT NULL,
    -- The source event's correlacao_id (the demanda_id when it had none).
    correlacao_id            UUID             NOT NULL,
    criado_em                TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The address text a resolution by endereco or inferencia came from, and what
    -- Nominatim made of it (migration 20261203130000; NULL for GPS).
    endereco_original        TEXT,
    endereco_geocodificado   TEXT,
    CONSTRAINT resolucoes_geo_pkey PRIMARY KEY (id)
);

-- Business deduplication: one resolution per demand. A unique index, not a
-- constraint, as the spec declares it.
CREATE UNIQUE INDEX resolucoes_geo_demanda_id_key ON d2.resolucoes_geo (demanda_id);
-- "Demands in this UC" (D-7's dashboard, D-4's ranking), and d2 regeorreferenciar --uc.
CREATE INDEX resolucoes_geo_unidade_civica_id_idx ON d2.resolucoes_geo (unidade_civica_id);
-- Idempotency: every call of the handler looks its event up.
CREATE INDEX resolucoes_geo_event_id_idx ON d2.resolucoes_geo (event_id);
-- Dashboard: demands whose location is uncertain.
CREATE INDEX resolucoes_geo_confianca_geo_idx ON d2.resolucoes_geo (confianca_geo);
-- d2 regeorreferenciar --since filters on the creation date.
CREATE INDEX resolucoes_geo_criado_em_idx ON d2.resolucoes_geo (criado_em);
-- Re-georeferencing reads only the points inside a changed area (d2.regeo_areas): the
-- same expression the queries use.
CREATE INDEX resolucoes_geo_ponto_idx ON d2.resolucoes_geo
    USING gist (ST_SetSRID(ST_MakePoint(coordenadas_lng, coordenadas_lat), 4326));
