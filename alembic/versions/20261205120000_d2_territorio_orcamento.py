"""Citizen drawings judged by what they take, summed per place and time window:

- d2.territorio_limites: the per-author daily count goes (autor_id is the producer's
  field; a new id costs nothing, and a forged one could silence a real author); budgets
  per município and level over a window come instead (janela_orcamento,
  orcamento_area_m2, orcamento_resolucoes, cobertura_max);
- d2.territorio_submissoes / d2.territorio_avaliacoes.resolucoes_tomadas: the stored
  answers a drawing took, summed against the budget; an index on the new UCs made
  without a moderator, by município, level and time;
- d2.territorio_avaliar: past a budget, or named like an official UC it lies on, a new
  drawing waits for a moderator; shares measured on the mirror's pieces;
- d2.territorio_submeter keeps resolucoes_tomadas; d2.territorio_validar gives fixed
  reasons, never PostGIS's error text.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205120000_d2_territorio_orcamento"
down_revision = "20261204150000_d2_territorio_versoes"
branch_labels = None
depends_on = None

_FUNCOES = (
    "functions/territorio_validar.sql",
    "functions/territorio_avaliar.sql",
    "functions/territorio_submeter.sql",
)
# Where each function's previous text was frozen.
_ANTES = {
    "functions/territorio_validar.sql": "20261204110000_d2_territorio_seguro",
    "functions/territorio_avaliar.sql": "20261204150000_d2_territorio_versoes",
    "functions/territorio_submeter.sql": "20261204110000_d2_territorio_seguro",
}


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.territorio_limites
            DROP COLUMN max_por_autor_dia,
            ADD COLUMN janela_orcamento INTERVAL NOT NULL DEFAULT '1 day',
            ADD COLUMN orcamento_area_m2 DOUBLE PRECISION NOT NULL DEFAULT 2e6,
            ADD COLUMN orcamento_resolucoes INTEGER NOT NULL DEFAULT 100,
            ADD COLUMN cobertura_max DOUBLE PRECISION NOT NULL DEFAULT 0.25,
            ADD CONSTRAINT territorio_limites_cobertura_max_check
                CHECK (cobertura_max BETWEEN 0 AND 1),
            ADD CONSTRAINT territorio_limites_orcamento_check
                CHECK (orcamento_area_m2 >= 0 AND orcamento_resolucoes >= 0
                       AND janela_orcamento > interval '0');
        UPDATE d2.territorio_limites SET orcamento_area_m2 = 1e7 WHERE nivel = 2;

        ALTER TABLE d2.territorio_submissoes ADD COLUMN resolucoes_tomadas BIGINT;
        ALTER TABLE d2.territorio_avaliacoes ADD COLUMN resolucoes_tomadas BIGINT;
        DROP INDEX d2.territorio_submissoes_autor_idx;
        CREATE INDEX territorio_submissoes_orcamento_idx
            ON d2.territorio_submissoes (municipio_uc_id, nivel, criado_em)
            WHERE decisao = 'nova' AND moderacao IS NULL;
        """,
    )
    for nome in _FUNCOES:
        migrations.apply_frozen(op, revision, nome)


def downgrade() -> None:
    for nome in _FUNCOES:
        migrations.apply_frozen(op, _ANTES[nome], nome)
    migrations.execute_sql(
        op,
        """
        DROP INDEX d2.territorio_submissoes_orcamento_idx;
        CREATE INDEX territorio_submissoes_autor_idx
            ON d2.territorio_submissoes (autor_id, criado_em);
        ALTER TABLE d2.territorio_avaliacoes DROP COLUMN resolucoes_tomadas;
        ALTER TABLE d2.territorio_submissoes DROP COLUMN resolucoes_tomadas;
        ALTER TABLE d2.territorio_limites
            DROP CONSTRAINT territorio_limites_orcamento_check,
            DROP CONSTRAINT territorio_limites_cobertura_max_check,
            DROP COLUMN cobertura_max,
            DROP COLUMN orcamento_resolucoes,
            DROP COLUMN orcamento_area_m2,
            DROP COLUMN janela_orcamento,
            ADD COLUMN max_por_autor_dia INTEGER NOT NULL DEFAULT 20;
        """,
    )
