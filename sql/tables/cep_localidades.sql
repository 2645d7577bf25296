-- The localities of CEP Aberto (migration 20261204140000): one row per city
-- name and UF of the CEPs `d2 cep import` loaded, and the município UC it is linked to
-- (core.uc_polygons, IBGE), or why not. CEP Aberto's "cities" include districts; a
-- district is linked to its município when its name says it ("Sucatinga (Beberibe)") or
-- when the linked CEPs of its CEP range (the first five digits) are one município's.
CREATE TABLE d2.cep_localidades (
    id              INTEGER      GENERATED ALWAYS AS IDENTITY,
    uf              CHAR(2)      NOT NULL,
    -- CEP Aberto's name of the city (or district).
    nome            VARCHAR(150) NOT NULL,
    municipio_uc_id UUID,
    -- How it was linked: nome (name and UF), distrito_nome (the município in its name),
    -- distrito_faixa (its CEP range's município); or why not: uf_ausente (the territory
    -- has no such UF), municipio_ausente (no município of that name in the UF, no range),
    -- ambiguo (several).
    vinculo         VARCHAR(30)  NOT NULL,
    CONSTRAINT cep_localidades_pkey PRIMARY KEY (id),
    CONSTRAINT cep_localidades_uf_nome_key UNIQUE (uf, nome)
);
