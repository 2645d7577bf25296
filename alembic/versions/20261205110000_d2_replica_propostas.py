"""Only D-2's importers write official territory; every other uc.poligono_* event is a
proposal, judged by what it would take, under limits only the owner writes.

- d2.replica_limites: one row, the owner's (d2_worker holds nothing on it): the origins
  the replica reads, the breaker's count and window, the stored answers proposals may
  take (one, and all of them in the window), the share of a UC's area one may cover, the
  mirror pieces one may reach. It replaces D2_REPLICA_ORIGENS, D2_REPLICA_BREAKER_MAX and
  D2_REPLICA_BREAKER_WINDOW, which the worker passed to the apply (and a stolen worker
  login could pass its own).
- d2.replica_uc.oficial: written by an event of D-2's importers with a fonte other than
  'comunitario'; proposals may not remove, replace or add to those UCs. Rows written
  before by other events rank as community now (fonte 'comunitario'), and the mirror
  re-syncs them.
- d2.replica_eventos.tomadas: the stored answers each proposal took.
- d2.nome_limpo: the cleaning of drawn names, defined once; territorio_avaliar and the
  replica use it.
- d2.replica_proposta: a proposal judged as a drawing is, under a parent of the mirror
  that holds it, by the share of other UCs' areas and the answers it would take.
- d2.replica_aplicar(event_id) and d2.replica_parar(event_id) take no limits and no
  motivo from their caller; replica_parar records a stop only when the breaker holds the
  event. Their previous signatures are dropped: stop workers of the previous version
  before migrating (their calls would fail and dead-letter replica events).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205110000_d2_replica_propostas"
down_revision = "20261205130100_d2_candidatos_por_indice"
branch_labels = None
depends_on = None

# Where the previous texts were frozen.
_REPLICA = "20261204120000_d2_eventos_confiaveis"
_AVALIAR = "20261205120000_d2_territorio_orcamento"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.replica_limites (
            unica BOOLEAN PRIMARY KEY DEFAULT true,
            origens VARCHAR(100)[] NOT NULL DEFAULT ARRAY['D-2']::varchar(100)[],
            disjuntor_max INTEGER NOT NULL DEFAULT 20,
            disjuntor_janela_s INTEGER NOT NULL DEFAULT 3600,
            respostas_janela_max INTEGER NOT NULL DEFAULT 200,
            respostas_max INTEGER NOT NULL DEFAULT 50,
            parte_max DOUBLE PRECISION NOT NULL DEFAULT 0.5,
            pedacos_max INTEGER NOT NULL DEFAULT 2000,
            CONSTRAINT replica_limites_unica_check CHECK (unica),
            CONSTRAINT replica_limites_disjuntor_check
                CHECK (disjuntor_max >= 1 AND disjuntor_janela_s >= 1),
            CONSTRAINT replica_limites_respostas_check
                CHECK (respostas_max >= 0 AND respostas_janela_max >= 0),
            CONSTRAINT replica_limites_parte_max_check CHECK (parte_max BETWEEN 0 AND 1),
            CONSTRAINT replica_limites_pedacos_max_check CHECK (pedacos_max >= 1)
        );
        INSERT INTO d2.replica_limites DEFAULT VALUES;
        ALTER TABLE d2.replica_uc ADD COLUMN oficial BOOLEAN NOT NULL DEFAULT false;
        UPDATE d2.replica_uc r
        SET oficial = true
        WHERE r.fonte IS DISTINCT FROM 'comunitario'
          AND EXISTS (SELECT 1 FROM d2.poligonos_eventos l WHERE l.event_id = r.event_id);
        WITH rebaixadas AS (
            UPDATE d2.replica_uc r
            SET fonte = 'comunitario'
            WHERE NOT r.oficial AND r.fonte IS DISTINCT FROM 'comunitario'
            RETURNING r.id, r.unidade_civica_id
        )
        INSERT INTO d2.mirror_mudancas (uc_polygon_id, unidade_civica_id)
        SELECT id, unidade_civica_id FROM rebaixadas;
        ALTER TABLE d2.replica_eventos ADD COLUMN tomadas INTEGER NOT NULL DEFAULT 0;
        DROP FUNCTION d2.replica_parar(uuid, text);
        DROP FUNCTION d2.replica_aplicar(uuid, varchar[], integer, integer);
        """,
    )
    for name in (
        "functions/nome_limpo.sql",
        "functions/territorio_avaliar.sql",
        "functions/replica_proposta.sql",
        "functions/replica_aplicar.sql",
        "functions/replica_parar.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.replica_parar(uuid);
        DROP FUNCTION d2.replica_aplicar(uuid);
        DROP FUNCTION d2.replica_proposta(jsonb, integer, uuid, uuid, uuid, d2.replica_limites);
        """,
    )
    migrations.apply_frozen(op, _REPLICA, "functions/replica_aplicar.sql")
    migrations.apply_frozen(op, _REPLICA, "functions/replica_parar.sql")
    migrations.apply_frozen(op, _AVALIAR, "functions/territorio_avaliar.sql")
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.nome_limpo(text);
        REVOKE EXECUTE ON FUNCTION d2.replica_aplicar(uuid, varchar[], integer, integer),
            d2.replica_parar(uuid, text) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION d2.replica_aplicar(uuid, varchar[], integer, integer),
            d2.replica_parar(uuid, text) TO d2_worker;
        ALTER TABLE d2.replica_eventos DROP COLUMN tomadas;
        ALTER TABLE d2.replica_uc DROP COLUMN oficial;
        DROP TABLE d2.replica_limites;
        """,
    )
