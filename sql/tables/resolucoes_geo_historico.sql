-- The previous answer of every re-georeferenced demand (migration 20261202130300): when
-- today's polygons answer differently, d2 regeorreferenciar or the follow-up rewrites
-- the row of d2.resolucoes_geo, which keeps exactly the spec's columns, and the answer
-- it replaces is kept here with when and why, the mirror version and the id of the
-- demanda.georreferenciada published for the change.
CREATE TABLE d2.resolucoes_geo_historico (
    id                           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resolucao_id                 UUID        NOT NULL,
    demanda_id                   UUID        NOT NULL,
    unidade_civica_id_anterior   UUID        NOT NULL,
    nivel_anterior               INTEGER     NOT NULL,
    cadeia_ucs_anterior          UUID[],
    unidade_civica_id_nova       UUID        NOT NULL,
    nivel_novo                   INTEGER     NOT NULL,
    cadeia_ucs_nova              UUID[],
    -- nivel_mais_fino, nivel_mais_amplo, outra_uc_mesmo_nivel or cadeia_alterada.
    motivo                       TEXT        NOT NULL,
    -- d2.mirror_state.versao when the answer changed.
    mirror_versao                BIGINT,
    evento_publicado_id          UUID,
    alterado_em                  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- A demand's history, in order.
CREATE INDEX resolucoes_geo_historico_demanda_id_idx
    ON d2.resolucoes_geo_historico (demanda_id, alterado_em);
CREATE INDEX resolucoes_geo_historico_alterado_em_idx
    ON d2.resolucoes_geo_historico (alterado_em);

COMMENT ON TABLE d2.resolucoes_geo_historico IS
    'Respostas anteriores de resoluções refeitas por d2 regeorreferenciar';
