"""Citizen-drawn polygons (spec 8.5, layer 2): submissions, consensus, moderation.

- d2.territorio_limites: per level (1 micro-área, 2 bairro), the area bounds and vertex
  cap a drawing must respect; operators may tune them with UPDATE.
- d2.territorio_submissoes: every drawing received, with its decision (nova,
  confirmacao, alternativa, rejeitada and why) — the history of every version.
- d2.territorio_ucs: the community UCs and their canonical drawing, current within the
  transaction that changes them (the mirror follows core.uc_polygons on its own time).
- d2.territorio_avaliar / _candidatas / _canonizar / _submeter / _moderar and the views
  d2.v_territorio_submissoes, d2.v_territorio_saude.
d2_worker may only EXECUTE d2.territorio_submeter (SECURITY DEFINER: its one way of
writing core.uc_polygons) and read the two tables; moderation runs as the owner
(sql/grants.sql).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203150000_d2_territorio_comunitario"
down_revision = "20261203130000_d2_geocodificacao"
branch_labels = None
depends_on = None

_FUNCOES = (
    "d2.territorio_submeter(uuid, uuid, uuid, text, integer, jsonb, uuid, uuid, uuid, integer)",
    "d2.territorio_moderar(uuid, text, text)",
    "d2.territorio_canonizar(uuid)",
    "d2.territorio_avaliar(jsonb, integer)",
    "d2.territorio_candidatas(geometry, integer)",
)


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.territorio_limites (
            nivel        INTEGER PRIMARY KEY CHECK (nivel IN (1, 2)),
            area_min_m2  DOUBLE PRECISION NOT NULL CHECK (area_min_m2 > 0),
            area_max_m2  DOUBLE PRECISION NOT NULL,
            max_vertices INTEGER NOT NULL CHECK (max_vertices >= 4),
            CHECK (area_max_m2 > area_min_m2)
        );
        -- A micro-área: a few blocks to a large favela; a bairro: a square of ~30 m to
        -- ~200 km² (the largest IBGE bairros of the Amazon).
        INSERT INTO d2.territorio_limites VALUES
            (1, 1000, 5e6, 5000),
            (2, 1000, 2e8, 20000);

        CREATE TABLE d2.territorio_submissoes (
            id              UUID PRIMARY KEY,
            event_id        UUID NOT NULL UNIQUE,
            lugar_id        UUID,
            autor_id        UUID,
            nome            VARCHAR(255) NOT NULL,
            nivel           INTEGER NOT NULL,
            geom            geometry(MultiPolygon, 4326),
            area_m2         DOUBLE PRECISION,
            reparada        BOOLEAN NOT NULL DEFAULT false,
            municipio_uc_id UUID,
            parent_uc_id    UUID,
            decisao         TEXT NOT NULL
                CHECK (decisao IN ('nova', 'confirmacao', 'alternativa', 'rejeitada')),
            motivo          TEXT,
            alvo_uc_id      UUID,
            sobreposicao    DOUBLE PRECISION,
            moderacao       TEXT CHECK (moderacao IN ('pendente', 'aceita', 'rejeitada')),
            moderado_em     TIMESTAMPTZ,
            moderado_por    VARCHAR(255),
            criado_em       TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            CHECK ((decisao = 'rejeitada') = (motivo IS NOT NULL)),
            CHECK (decisao = 'rejeitada' OR (geom IS NOT NULL AND alvo_uc_id IS NOT NULL))
        );
        CREATE INDEX territorio_submissoes_alvo_idx ON d2.territorio_submissoes (alvo_uc_id);
        CREATE INDEX territorio_submissoes_pendentes_idx ON d2.territorio_submissoes (criado_em)
            WHERE moderacao = 'pendente';

        CREATE TABLE d2.territorio_ucs (
            unidade_civica_id  UUID PRIMARY KEY,
            uc_polygon_id      UUID NOT NULL,
            nivel              INTEGER NOT NULL,
            nome               VARCHAR(255) NOT NULL,
            municipio_uc_id    UUID NOT NULL,
            submissao_canonica UUID NOT NULL REFERENCES d2.territorio_submissoes (id),
            geom               geometry(MultiPolygon, 4326) NOT NULL,
            ativa              BOOLEAN NOT NULL DEFAULT true,
            criada_em          TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            atualizada_em      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX territorio_ucs_geom_idx ON d2.territorio_ucs USING gist (geom);
        """,
    )
    for name in (
        "functions/territorio_candidatas.sql",
        "functions/territorio_avaliar.sql",
        "functions/territorio_canonizar.sql",
        "functions/territorio_submeter.sql",
        "functions/territorio_moderar.sql",
        "views/v_territorio_submissoes.sql",
        "views/v_territorio_saude.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP VIEW IF EXISTS d2.v_territorio_saude, d2.v_territorio_submissoes;
        """
        + "\n".join(f"DROP FUNCTION IF EXISTS {f};" for f in _FUNCOES)
        + """
        DROP TABLE d2.territorio_ucs, d2.territorio_submissoes, d2.territorio_limites;
        """,
    )
