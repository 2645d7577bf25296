"""d2.cep_nomes: the bairros and streets d2.ceps gives each município, by name, for the
address ladder to read a text as a whole (a word inside a bairro's name the text's
município has is not a place of its own; the bairro or street named tells homonymous
municípios apart). Filled here from the CEPs already imported; `d2 cep import` rewrites
it after each import.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205130000_d2_cep_nomes"
down_revision = "20261205180000_d2_mirror_aviso_standby"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "tables/cep_nomes.sql")
    migrations.execute_sql(
        op,
        r"""
        INSERT INTO d2.cep_nomes (nome_busca, tipo, municipio_uc_id, ceps)
        SELECT n.nome_busca, n.tipo, l.municipio_uc_id, count(DISTINCT c.cep)::integer
        FROM d2.ceps c
        JOIN d2.cep_localidades l ON l.id = c.localidade_id
        CROSS JOIN LATERAL (
            VALUES (d2.nome_busca(c.bairro), 'bairro'),
                   (d2.nome_busca(split_part(c.bairro, '(', 1)), 'bairro'),
                   (CASE WHEN strpos(c.logradouro_busca, ' ') > 0
                         THEN substr(c.logradouro_busca, strpos(c.logradouro_busca, ' ') + 1)
                    END, 'logradouro')
        ) AS n (nome_busca, tipo)
        WHERE l.municipio_uc_id IS NOT NULL AND n.nome_busca <> ''
        GROUP BY n.nome_busca, n.tipo, l.municipio_uc_id;
        """,
    )
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(op, "DROP TABLE IF EXISTS d2.cep_nomes;")
