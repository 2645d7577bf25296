"""Reviews an operator can finish (docs/design.md, decision 12).

- d2.revisoes_tratadas: how each review was closed without a polygon holding its point
  (the near rule, an operator's choice, a discard), with the distance, who, when and why;
  keyed by event_id like the resolution, so the spec's tables keep their columns.
- d2.resolver_proximo / d2.resolver_proximos: the near rule, for the points
  d2.resolver_territorio leaves in no polygon (its signature and meaning unchanged),
  measuring with d2.distancia_m (metres, the edges straight in degrees as the resolver
  sees them).
- d2.revisao_atribuir / d2.revisao_descartar (SECURITY DEFINER, over
  d2.revisao_em_aberto): an operator answers a review at a unit or closes it, with the
  publication, in the caller's transaction.
- d2_operador: a NOLOGIN role (created only where missing: roles are cluster-wide) that
  may read the review queue and call those two functions, nothing more
  (docs/reliability.md, section 1); its grants live in sql/grants.sql.
- d2.v_resolucoes gains passo_revisao and distancia_m; d2.v_revisoes_pendentes its event's
  sequence_number; d2.v_revisoes_tratadas lists the closed reviews.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261208200000_d2_revisoes_tratadas"
down_revision = "20261208120000_d2_disjuntor_devolve"
branch_labels = None
depends_on = None

ARQUIVOS = (
    "tables/revisoes_tratadas.sql",
    "functions/distancia_m.sql",
    "functions/resolver_proximo.sql",
    "functions/resolver_proximos.sql",
    "functions/revisao_em_aberto.sql",
    "functions/revisao_atribuir.sql",
    "functions/revisao_descartar.sql",
    "views/v_resolucoes.sql",
    "views/v_revisoes_pendentes.sql",
    "views/v_revisoes_tratadas.sql",
)


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'd2_operador') THEN
                CREATE ROLE d2_operador NOLOGIN;
                COMMENT ON ROLE d2_operador IS
                    'D-2 review operator: grant it to the login that answers or discards reviews';
            END IF;
        EXCEPTION WHEN duplicate_object THEN
            NULL;  -- created at the same moment by a migration of another database
        END
        $$;
        """,
    )
    for arquivo in ARQUIVOS:
        migrations.apply_frozen(op, revision, arquivo)
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP VIEW IF EXISTS d2.v_revisoes_tratadas;
        DROP VIEW IF EXISTS d2.v_resolucoes;
        DROP VIEW IF EXISTS d2.v_revisoes_pendentes;
        DROP FUNCTION IF EXISTS d2.revisao_descartar(uuid, text, text);
        DROP FUNCTION IF EXISTS d2.revisao_atribuir(uuid, uuid, text, text);
        DROP FUNCTION IF EXISTS d2.revisao_em_aberto(uuid, text, uuid, text, text);
        DROP FUNCTION IF EXISTS d2.resolver_proximos(
            double precision[], double precision[], double precision, double precision);
        DROP FUNCTION IF EXISTS d2.resolver_proximo(
            double precision, double precision, double precision, double precision);
        DROP FUNCTION IF EXISTS d2.distancia_m(geometry, double precision, double precision);
        DROP TABLE IF EXISTS d2.revisoes_tratadas;
        """,
    )
    anterior = "20261202130200_d2_inspection_views"
    migrations.apply_frozen(op, anterior, "views/v_resolucoes.sql")
    migrations.apply_frozen(op, anterior, "views/v_revisoes_pendentes.sql")
    migrations.execute_sql(
        op,
        """
        DO $$
        DECLARE
            papel oid := (SELECT oid FROM pg_roles WHERE rolname = 'd2_operador');
        BEGIN
            IF papel IS NULL THEN
                RETURN;
            END IF;
            EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA d2 FROM d2_operador';
            EXECUTE 'REVOKE ALL ON ALL FUNCTIONS IN SCHEMA d2 FROM d2_operador';
            EXECUTE 'REVOKE ALL ON SCHEMA d2, core FROM d2_operador';
            EXECUTE 'REVOKE ALL ON core.uc_polygons FROM d2_operador';
            IF EXISTS (SELECT 1 FROM pg_shdepend WHERE refobjid = papel)
               OR EXISTS (SELECT 1 FROM pg_auth_members WHERE roleid = papel) THEN
                RETURN;  -- still used: by another database, or granted to a login
            END IF;
            DROP ROLE d2_operador;
        END
        $$;
        """,
    )
