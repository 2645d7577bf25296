-- What the geocoding stage understood of each address and how it answered
-- (migration 20261204140100): one row per address demand concluded by the stage,
-- resolved or discarded, written with its terminal state. d2.v_geocodificacoes joins it
-- with the resolution.
CREATE TABLE d2.geocodificacoes (
    event_id           UUID           NOT NULL,
    demanda_id         UUID           NOT NULL,
    -- How precise the answer is: numero (a house or POI), logradouro (a street), cep (the
    -- CEP's street or code), bairro, municipio, uf; NULL when discarded (or with
    -- D2_GEOCODER_LADDER=off, which does not tell).
    precisao           VARCHAR(12),
    -- The step of the ladder that answered (docs/geocoding.md).
    passo              VARCHAR(20),
    -- The fields understood: tipo, logradouro, numero, complemento, bairro, municipio,
    -- uf, cep, referencia, esquina; cep_contraditorio when the CEP was set aside.
    endereco_entendido JSONB,
    -- Nominatim searches made for it (answers from the cache are not searches).
    consultas          INTEGER        NOT NULL DEFAULT 0,
    -- Why it was discarded (nao_encontrado, ambiguo, contraditorio); NULL if resolved.
    motivo             VARCHAR(20),
    criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT geocodificacoes_pkey PRIMARY KEY (event_id)
);
