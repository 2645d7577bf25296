"""Schema d2, d2.resolucoes_geo, d2.eventos_processados and core.uc_polygons (spec §2).

core.uc_polygons belongs to the monolith's core: it is created only where it is missing
(standalone installs, tests) and marked so that downgrade drops only what we created.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260809112210_d2_uc_polygons_resolucoes_geo"
down_revision = None
branch_labels = None
depends_on = None

CRIADA_PELA_D2 = "criada pela migration d2 20260809112210"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        CREATE SCHEMA IF NOT EXISTS d2;
        CREATE SCHEMA IF NOT EXISTS core;

        CREATE TABLE d2.resolucoes_geo (
            id                       UUID             NOT NULL,
            demanda_id               UUID             NOT NULL,
            unidade_civica_id        UUID             NOT NULL,
            nivel_minimo_resolvido   INTEGER          NOT NULL,
            cadeia_ucs               UUID[],
            metodo_resolucao         VARCHAR(20)      NOT NULL,
            confianca_geo            VARCHAR(10)      NOT NULL,
            coordenadas_lat          DOUBLE PRECISION NOT NULL,
            coordenadas_lng          DOUBLE PRECISION NOT NULL,
            event_id                 UUID             NOT NULL,
            correlacao_id            UUID             NOT NULL,
            criado_em                TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP,
            CONSTRAINT resolucoes_geo_pkey PRIMARY KEY (id)
        );
        CREATE UNIQUE INDEX resolucoes_geo_demanda_id_key ON d2.resolucoes_geo (demanda_id);
        CREATE INDEX resolucoes_geo_unidade_civica_id_idx ON d2.resolucoes_geo (unidade_civica_id);
        CREATE INDEX resolucoes_geo_event_id_idx ON d2.resolucoes_geo (event_id);
        CREATE INDEX resolucoes_geo_confianca_geo_idx ON d2.resolucoes_geo (confianca_geo);

        CREATE TABLE d2.eventos_processados (
            event_id       UUID           NOT NULL,
            demanda_id     UUID           NOT NULL,
            processado_em  TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
            criado_em      TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
            CONSTRAINT eventos_processados_pkey PRIMARY KEY (event_id)
        );
        CREATE INDEX eventos_processados_demanda_id_idx ON d2.eventos_processados (demanda_id);

        DO $$
        BEGIN
            IF to_regclass('core.uc_polygons') IS NULL THEN
                CREATE TABLE core.uc_polygons (
                    id                 UUID           NOT NULL,
                    unidade_civica_id  UUID           NOT NULL,
                    nivel              INTEGER        NOT NULL,
                    parent_uc_id       UUID,
                    nome               VARCHAR(255)   NOT NULL,
                    geometria          JSONB          NOT NULL,
                    criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
                    atualizado_em      TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
                    CONSTRAINT uc_polygons_pkey PRIMARY KEY (id)
                );
                COMMENT ON TABLE core.uc_polygons IS '{CRIADA_PELA_D2}';
            END IF;
        END
        $$;
        CREATE INDEX IF NOT EXISTS uc_polygons_unidade_civica_id_idx
            ON core.uc_polygons (unidade_civica_id);
        CREATE INDEX IF NOT EXISTS uc_polygons_nivel_idx ON core.uc_polygons (nivel);
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        DROP TABLE d2.eventos_processados;
        DROP TABLE d2.resolucoes_geo;
        DO $$
        BEGIN
            IF obj_description('core.uc_polygons'::regclass, 'pg_class') = '{CRIADA_PELA_D2}' THEN
                DROP TABLE core.uc_polygons;
            END IF;
        END
        $$;
        DROP SCHEMA IF EXISTS d2;
        """,
    )
