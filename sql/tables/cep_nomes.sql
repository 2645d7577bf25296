-- The names d2.ceps gives each município (migration 20261205130000): every bairro and
-- every street (its name without its type: "bom jesus" of "Rua Bom Jesus") of every
-- locality linked to a município UC, written as d2.nome_busca writes names, with how many
-- CEPs carry it. `d2 cep import` rewrites it after linking the localities. The address
-- ladder reads a text against it (d2/geocoder/places/): a word of a longer name a
-- município has ("Barra" of the bairro "Barra da Tijuca" of Rio de Janeiro) is not a
-- place of its own, and a bairro or street named tells homonymous municípios apart.
CREATE TABLE d2.cep_nomes (
    nome_busca      VARCHAR(255) NOT NULL,
    -- 'bairro' or 'logradouro'.
    tipo            VARCHAR(10)  NOT NULL,
    municipio_uc_id UUID         NOT NULL,
    ceps            INTEGER      NOT NULL,
    -- The lookups: (município, name) pairs, a text's words against the municípios it
    -- names, one btree probe each; and whether a município has any bairro or street.
    CONSTRAINT cep_nomes_pkey PRIMARY KEY (municipio_uc_id, nome_busca, tipo),
    CONSTRAINT cep_nomes_tipo_check CHECK (tipo IN ('bairro', 'logradouro'))
);
