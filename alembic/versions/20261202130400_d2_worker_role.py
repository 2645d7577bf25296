"""The d2_worker role: exactly what `d2 worker` needs, nothing else (least privilege).

A NOLOGIN template: an operator grants it to the login the worker connects with
(`GRANT d2_worker TO d2_worker_app;`, see docs/reliability.md). It can

* read core.uc_polygons (never write it: that is L-2's and the importer's);
* read core.event_log and INSERT into it (plus USAGE on the sequence behind the
  ordem_insercao default). The commit-time numbering UPDATEs the row as the function's
  owner: core.event_log_numerar() is already SECURITY DEFINER, so no UPDATE is granted;
* read and write the D-2 tables the handler uses (resolucoes_geo, eventos_processados,
  revisoes_geo_pendentes, consumer_offset) and read the mirror it resolves against;
* record and mark dead letters (core.dead_letter_queue: no DELETE, they are the audit);
* execute the resolver functions.

Roles are cluster-wide, grants are per database. The role is created only where it is
missing (another database of the cluster may have created it already). Downgrade
revokes what this migration granted here and drops the role only when no other
database still holds privileges for it (pg_shdepend) and no login is a member of it.

Tables created by later migrations are NOT covered (no ALTER DEFAULT PRIVILEGES): a
migration that gives the worker a new table grants it explicitly.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130400_d2_worker_role"
# The brief asked for 20261202130300_d2_regeo_history; 20261202130500_d2_resolver_fast
# already hangs from it, and two migrations on one parent make two heads. Chaining after
# 130500 also lets this migration grant d2.mirror_cadeias, which 130500 creates and the
# resolver reads.
down_revision = "20261202130500_d2_resolver_fast"
branch_labels = None
depends_on = None

GRANTS = """
GRANT USAGE ON SCHEMA core, d2 TO d2_worker;
GRANT SELECT ON core.uc_polygons TO d2_worker;
GRANT SELECT, INSERT ON core.event_log TO d2_worker;
GRANT USAGE ON SEQUENCE core.event_log_ordem_insercao_seq TO d2_worker;
GRANT SELECT, INSERT, UPDATE ON core.dead_letter_queue TO d2_worker;
GRANT SELECT, INSERT, UPDATE, DELETE
    ON d2.resolucoes_geo, d2.eventos_processados, d2.revisoes_geo_pendentes,
       d2.consumer_offset
    TO d2_worker;
GRANT SELECT
    ON d2.mirror_uc, d2.mirror_pieces, d2.mirror_state, d2.mirror_cadeias
    TO d2_worker;
GRANT EXECUTE
    ON FUNCTION d2.resolver_territorio(double precision, double precision),
                d2.resolver_territorios(double precision[], double precision[]),
                d2.cadeia_ucs(uuid),
                d2.arredondar_coordenada(double precision)
    TO d2_worker;
"""

REVOKES = """
REVOKE USAGE ON SCHEMA core, d2 FROM d2_worker;
REVOKE SELECT ON core.uc_polygons FROM d2_worker;
REVOKE SELECT, INSERT ON core.event_log FROM d2_worker;
REVOKE USAGE ON SEQUENCE core.event_log_ordem_insercao_seq FROM d2_worker;
REVOKE SELECT, INSERT, UPDATE ON core.dead_letter_queue FROM d2_worker;
REVOKE SELECT, INSERT, UPDATE, DELETE
    ON d2.resolucoes_geo, d2.eventos_processados, d2.revisoes_geo_pendentes,
       d2.consumer_offset
    FROM d2_worker;
REVOKE SELECT
    ON d2.mirror_uc, d2.mirror_pieces, d2.mirror_state, d2.mirror_cadeias
    FROM d2_worker;
REVOKE EXECUTE
    ON FUNCTION d2.resolver_territorio(double precision, double precision),
                d2.resolver_territorios(double precision[], double precision[]),
                d2.cadeia_ucs(uuid),
                d2.arredondar_coordenada(double precision)
    FROM d2_worker;
"""


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'd2_worker') THEN
                CREATE ROLE d2_worker NOLOGIN;
                COMMENT ON ROLE d2_worker IS
                    'D-2 worker: grant it to the login that runs d2 worker';
            END IF;
        EXCEPTION WHEN duplicate_object THEN
            NULL;  -- created at the same moment by a migration of another database
        END
        $$;
        """
        + GRANTS,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        REVOKES
        + """
        DO $$
        DECLARE
            papel oid := (SELECT oid FROM pg_roles WHERE rolname = 'd2_worker');
        BEGIN
            IF papel IS NULL THEN
                RETURN;
            END IF;
            IF EXISTS (SELECT 1 FROM pg_shdepend WHERE refobjid = papel)
               OR EXISTS (SELECT 1 FROM pg_auth_members WHERE roleid = papel) THEN
                RETURN;  -- still used: by another database, or granted to a login
            END IF;
            DROP ROLE d2_worker;
        END
        $$;
        """,
    )
