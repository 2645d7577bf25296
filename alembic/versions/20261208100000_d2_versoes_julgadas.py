"""A version of a community unit is a claim, judged by what it takes; the territory's
budgets get a ceiling with no window; names of places are kept for them:

- d2.territorio_versoes: a version awaiting a moderator (an alternative, a held
  confirmation) takes no part in choosing a unit's shape; d2.territorio_escolha is that
  choice, defined once for d2.territorio_canonizar and for the evaluation that foresees it;
- d2.territorio_julgar: what a change takes (a new unit: all of it; a version: the new
  shape minus the current one, and the shape the consensus would move to) judged by
  shares, area, answers, the município's budgets and ceiling; d2.territorio_avaliar holds
  a version past any bound or with a part that does not overlap the current shape;
- d2.territorio_homonima: a drawing named like any município or UF, or like an official
  unit of its município, waits for a moderator;
- d2.territorio_limites.teto_area_m2 / teto_resolucoes: the ceiling; what each change
  took is kept (geom_tomada, area_tomada_m2) and counts until a moderator reviews it;
- d2.territorio_submeter / d2.territorio_moderar: held confirmations wait as
  alternatives do; a moderation moves the territory's generation.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261208100000_d2_versoes_julgadas"
down_revision = "20261207110000_d2_nome_busca_em_linha"
branch_labels = None
depends_on = None

_NOVAS = (
    "functions/territorio_julgar.sql",
    "functions/territorio_homonima.sql",
    "functions/territorio_versoes.sql",
    "functions/territorio_escolha.sql",
)
_FUNCOES = (
    "functions/territorio_canonizar.sql",
    "functions/territorio_avaliar.sql",
    "functions/territorio_submeter.sql",
    "functions/territorio_moderar.sql",
)
# Where each function's previous text was frozen.
_ANTES = {
    "functions/territorio_versoes.sql": "20261204150000_d2_territorio_versoes",
    "functions/territorio_canonizar.sql": "20261204150000_d2_territorio_versoes",
    "functions/territorio_avaliar.sql": "20261205110000_d2_replica_propostas",
    "functions/territorio_submeter.sql": "20261205120000_d2_territorio_orcamento",
    "functions/territorio_moderar.sql": "20261204110000_d2_territorio_seguro",
}


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.territorio_limites
            ADD COLUMN teto_area_m2 DOUBLE PRECISION NOT NULL DEFAULT 2e6,
            ADD COLUMN teto_resolucoes INTEGER NOT NULL DEFAULT 100,
            ADD CONSTRAINT territorio_limites_teto_check
                CHECK (teto_area_m2 >= 0 AND teto_resolucoes >= 0);
        UPDATE d2.territorio_limites SET teto_area_m2 = 1e7 WHERE nivel = 2;

        ALTER TABLE d2.territorio_submissoes
            ADD COLUMN geom_tomada geometry(MultiPolygon, 4326),
            ADD COLUMN area_tomada_m2 DOUBLE PRECISION NOT NULL DEFAULT 0,
            DROP CONSTRAINT territorio_submissoes_check,
            ADD CONSTRAINT territorio_submissoes_check
                CHECK ((decisao NOT IN ('rejeitada', 'retida') OR motivo IS NOT NULL)
                       AND (motivo IS NULL OR decisao IN ('rejeitada', 'retida')
                            OR moderacao IS NOT NULL));
        -- A new unit took its whole drawing; what versions took was not recorded.
        UPDATE d2.territorio_submissoes
        SET geom_tomada = geom, area_tomada_m2 = coalesce(area_m2, 0)
        WHERE decisao = 'nova';
        ALTER TABLE d2.territorio_avaliacoes
            ADD COLUMN geom_tomada geometry(MultiPolygon, 4326),
            ADD COLUMN area_tomada_m2 DOUBLE PRECISION,
            ADD COLUMN pontuacao DOUBLE PRECISION;
        -- Verdicts reached under the old rules are reached again.
        UPDATE d2.territorio_estado SET geracao = geracao + 1;
        DROP INDEX d2.territorio_submissoes_orcamento_idx;
        CREATE INDEX territorio_submissoes_orcamento_idx
            ON d2.territorio_submissoes (municipio_uc_id, nivel, criado_em)
            WHERE decisao IN ('nova', 'confirmacao') AND moderacao IS NULL;
        """,
    )
    for nome in _NOVAS + _FUNCOES:
        migrations.apply_frozen(op, revision, nome)


def downgrade() -> None:
    for nome in ("functions/territorio_versoes.sql", *_FUNCOES):
        migrations.apply_frozen(op, _ANTES[nome], nome)
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.territorio_escolha(uuid, jsonb, double precision);
        DROP FUNCTION d2.territorio_homonima(text, geometry, uuid);
        DROP FUNCTION d2.territorio_julgar(geometry, integer, uuid, uuid);
        DROP INDEX d2.territorio_submissoes_orcamento_idx;
        CREATE INDEX territorio_submissoes_orcamento_idx
            ON d2.territorio_submissoes (municipio_uc_id, nivel, criado_em)
            WHERE decisao = 'nova' AND moderacao IS NULL;
        UPDATE d2.territorio_estado SET geracao = geracao + 1;
        ALTER TABLE d2.territorio_avaliacoes
            DROP COLUMN pontuacao,
            DROP COLUMN area_tomada_m2,
            DROP COLUMN geom_tomada;
        -- Held confirmations go back to plain ones awaiting a moderator.
        UPDATE d2.territorio_submissoes SET motivo = NULL
        WHERE decisao NOT IN ('rejeitada', 'retida');
        ALTER TABLE d2.territorio_submissoes
            DROP CONSTRAINT territorio_submissoes_check,
            ADD CONSTRAINT territorio_submissoes_check
                CHECK ((decisao IN ('rejeitada', 'retida')) = (motivo IS NOT NULL)),
            DROP COLUMN area_tomada_m2,
            DROP COLUMN geom_tomada;
        ALTER TABLE d2.territorio_limites
            DROP CONSTRAINT territorio_limites_teto_check,
            DROP COLUMN teto_resolucoes,
            DROP COLUMN teto_area_m2;
        """,
    )
