-- The territory: one row per polygon of a unidade cívica (UC), GeoJSON in JSONB, shared
-- with L-2 (spec §2.6), written by the territorial seeds (D-2's importers) and by
-- citizen-drawn UCs (d2.territorio_submeter). It belongs to the monolith's core:
-- migration 20260809112210 creates it only where the monolith has not, which is what
-- this file describes (standalone installs, tests). On the monolith's table the
-- migrations add only what is missing: the columns fonte .. nome_busca and the three
-- secondary indexes below.
--
-- The columns keep the order the migrations left them in (fonte, metadados,
-- populacao_estimada and nome_busca were added later), which SELECT * shows.
-- The trigger that keeps nome_busca: uc_polygons_nome_busca (migration 20260913120000,
-- refined by 20261203120000); the change capture: sql/triggers/uc_polygons_capturar.sql.
CREATE TABLE core.uc_polygons (
    id                 UUID           NOT NULL,
    unidade_civica_id  UUID           NOT NULL,
    -- 1 micro-área, 2 bairro, 4 município, 5 UF, 6 região, 7 país.
    nivel              INTEGER        NOT NULL,
    -- No foreign key: a parent may arrive after its children; a chain stops at a
    -- missing parent (d2.cadeia_ucs).
    parent_uc_id       UUID,
    nome               VARCHAR(255)   NOT NULL,
    -- A GeoJSON Polygon or MultiPolygon. JSONB, not PostGIS (spec §2.6): D-2 keeps its
    -- own geometry in d2.mirror_uc / d2.mirror_pieces.
    geometria          JSONB          NOT NULL,
    criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    atualizado_em      TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- Who wrote the row: 'ibge', 'osm', 'comunitario'; rows older than the column were
    -- labelled 'legado'. NOT NULL with no default: every writer says who it is.
    fonte              VARCHAR(50)    NOT NULL,
    -- The seed scripts' extra facts (official code, source file).
    metadados          JSONB          NOT NULL DEFAULT '{}',
    -- NULL in the MVP: no colony consumes population (spec §2.6).
    populacao_estimada INTEGER,
    -- nome in lower case, without accents or punctuation, kept by the trigger
    -- uc_polygons_nome_busca: D-7's name search and D-2's inference of textual addresses.
    nome_busca         VARCHAR(255)   NOT NULL DEFAULT '',
    CONSTRAINT uc_polygons_pkey PRIMARY KEY (id)
);

-- Chains and names by UC (the spec's index).
CREATE INDEX uc_polygons_unidade_civica_id_idx ON core.uc_polygons (unidade_civica_id);
-- Polygons loaded level by level (the spec's index).
CREATE INDEX uc_polygons_nivel_idx ON core.uc_polygons (nivel);
-- A place named exactly, one probe per run of words (d2.candidatos_territorio). Added
-- by migration 20261205130100. (The trigram index 20261203130000 added beside it was
-- dropped by 20261206130000: misspellings are read in the worker's process.)
CREATE INDEX uc_polygons_nome_busca_idx ON core.uc_polygons (nome_busca);

-- The marker the downgrade reads: it drops the table only if D-2 created it.
COMMENT ON TABLE core.uc_polygons IS 'criada pela migration d2 20260809112210';
