"""d2.resolucoes_geo_historico: the previous answer of every re-georeferenced demand.

`d2 regeorreferenciar` rewrites a stored resolution when today's polygons answer
differently; the row it replaces is kept here with when and why, and the event id of
the demanda.georreferenciada published for the change. d2.resolucoes_geo keeps exactly
the spec's columns.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130300_d2_regeo_history"
down_revision = "20261202130200_d2_inspection_views"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
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
            motivo                       TEXT        NOT NULL,
            mirror_versao                BIGINT,
            evento_publicado_id          UUID,
            alterado_em                  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX resolucoes_geo_historico_demanda_id_idx
            ON d2.resolucoes_geo_historico (demanda_id, alterado_em);
        CREATE INDEX resolucoes_geo_historico_alterado_em_idx
            ON d2.resolucoes_geo_historico (alterado_em);
        COMMENT ON TABLE d2.resolucoes_geo_historico IS
            'Respostas anteriores de resoluções refeitas por d2 regeorreferenciar';

        -- d2 regeorreferenciar --desde filters on the creation date.
        CREATE INDEX resolucoes_geo_criado_em_idx ON d2.resolucoes_geo (criado_em);
        """,
    )
    migrations.apply_frozen(op, revision, "views/v_resolucoes_historico.sql")


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP VIEW IF EXISTS d2.v_resolucoes_historico;
        DROP INDEX IF EXISTS d2.resolucoes_geo_criado_em_idx;
        DROP TABLE d2.resolucoes_geo_historico;
        """,
    )
