"""d2_worker sees only D-2's events and dead letters.

Until this revision d2_worker held SELECT and INSERT on core.event_log and SELECT,
INSERT, UPDATE on core.dead_letter_queue: a stolen worker login could read every
domain's payloads (other colonies' personal data), publish any event type, and read or
rewrite every consumer's dead letters. Row-level security would have bounded it too, but
it changes the tables for everyone (COPY FROM refused to every role it applies to,
pg_dump needing --enable-row-security), which docs/design.md's "What D-2 may do to core" rules
out. So D-2 adds, in schema d2 only:

- d2.eventos: a security-barrier view of the log restricted to the types of
  d2.eventos_tipos_lidos();
- d2.eventos_publicar: an auto-updatable view WITH CHECK OPTION that admits only the
  types of d2.eventos_tipos_publicados();
- d2.dead_letters: D-2's dead letters (consumer 'D-2' or 'D-2/...'), auto-updatable
  WITH CHECK OPTION;
- d2.eventos_ler / _cerca / _apos / _ultimo_visivel: SECURITY DEFINER reads in the
  readers' (transacao, sequence_number) order, which a barrier view cannot serve from
  the index (see sql/functions/eventos_ler.sql);
- d2.consumer_posicao reads the cursor's event through d2.eventos.
sql/grants.sql takes the table privileges away from d2_worker and grants these.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203160000_d2_eventos_vistas"
down_revision = "20261203150010_d2_regeo_acompanhamento"
branch_labels = None
depends_on = None

_ARQUIVOS = (
    "functions/eventos_tipos_publicados.sql",
    "functions/eventos_tipos_lidos.sql",
    "functions/eventos_exigir_tipo.sql",
    "views/eventos.sql",
    "views/eventos_publicar.sql",
    "views/dead_letters.sql",
    "functions/eventos_ler.sql",
    "functions/eventos_cerca.sql",
    "functions/eventos_apos.sql",
    "functions/eventos_ultimo_visivel.sql",
    "functions/consumer_posicao.sql",
)


def upgrade() -> None:
    for name in _ARQUIVOS:
        migrations.apply_frozen(op, revision, name)
    # Grants (and the revokes on the core tables): sql/grants.sql, re-applied at head.


def downgrade() -> None:
    # consumer_posicao first: it reads d2.eventos, which goes below.
    migrations.apply_frozen(
        op, "20261203100000_event_log_transacao", "functions/consumer_posicao.sql"
    )
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION IF EXISTS d2.eventos_ler(varchar[], xid8, bigint, integer, bigint, bigint);
        DROP FUNCTION IF EXISTS d2.eventos_cerca(varchar);
        DROP FUNCTION IF EXISTS d2.eventos_apos(varchar, xid8, bigint);
        DROP FUNCTION IF EXISTS d2.eventos_ultimo_visivel(varchar);
        DROP VIEW IF EXISTS d2.dead_letters, d2.eventos_publicar, d2.eventos;
        DROP FUNCTION IF EXISTS d2.eventos_exigir_tipo(varchar);
        DROP FUNCTION IF EXISTS d2.eventos_tipos_lidos();
        DROP FUNCTION IF EXISTS d2.eventos_tipos_publicados();
        -- What the worker held before this revision (sql/grants.sql at that revision).
        GRANT SELECT, INSERT ON core.event_log TO d2_worker;
        GRANT SELECT, INSERT, UPDATE ON core.dead_letter_queue TO d2_worker;
        """,
    )
