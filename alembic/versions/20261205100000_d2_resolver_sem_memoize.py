"""Two plans the resolver's measurements pointed at, same answers:

- d2.resolver_territorios runs with enable_memoize off: the planner put a Memoize node
  (keyed by the rounded point) above each point's lookup, and the points of a batch are
  distinct, so it never hit and cost 10-25 % of the server CPU of a batch of random points;
- d2.mirror_faixas_invalidar drops a change's clean intervals as one range of bands (a
  B-tree range scan): `IN (SELECT d2.faixas_tocadas(g))` was planned as a sequential scan
  of d2.mirror_faixas once per changed row, which made a re-import's large update run for
  minutes.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205100000_d2_resolver_sem_memoize"
down_revision = "20261205110000_d2_replica_propostas"
branch_labels = None
depends_on = None

# Where the previous texts were frozen.
_RESOLVER = "20261203162000_d2_resolver_um_ponto"
_INVALIDAR = "20261204130000_d2_travas"


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/resolver_territorios.sql")
    migrations.apply_frozen(op, revision, "functions/mirror_faixas_invalidar.sql")


def downgrade() -> None:
    migrations.apply_frozen(op, _RESOLVER, "functions/resolver_territorios.sql")
    migrations.apply_frozen(op, _INVALIDAR, "functions/mirror_faixas_invalidar.sql")
