"""On-demand answers are current: before a command answers from the mirror, it applies
what writers of core.uc_polygons left waiting (the apply the worker runs at each poll),
bounded in time, and, for commands that show stored answers, follows the changes up as
the worker would (stored resolutions and reviews re-examined, changed answers
published). When it cannot — another applier holds the lock past the bound, the apply
itself runs past it, or this role may not apply — it answers anyway and says how many
changes wait and how to apply them: a write to core.uc_polygons is never silently
invisible to the operator who just made it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from d2 import db, errors
from d2.ops import regeo
from d2.territorio import mirror, resolver


@dataclass
class Freshness:
    """What bringing the mirror up to date did before an answer."""

    aplicado: mirror.Applied | None = None
    pendentes: int = 0
    """Changes of core.uc_polygons still waiting after the attempt."""
    motivo: str | None = None
    """Why they wait (None when nothing waits)."""
    acompanhamento: dict[str, Any] | None = None
    """The follow-up's report, when the command asked for it."""
    por_acompanhar: int = 0
    """Stored answers and reviews still queued for the follow-up after the bound."""
    somente_leitura: str | None = None
    """Why nothing could be applied, when the session may not write: "standby" (a hot
    standby) or "sessao" (a read-only session on a server that takes writes)."""

    def linhas(self) -> list[str]:
        """One line per thing to say, for stderr (nothing when all was current)."""
        saida = []
        if self.aplicado is not None and self.aplicado.changes:
            a = self.aplicado
            saida.append(
                f"d2: mirror: applied {a.changes} change(s) of core.uc_polygons "
                f"({a.poligonos} polygon(s)) in {a.segundos:.2f} s before answering"
            )
        if self.pendentes and self.somente_leitura == "standby":
            saida.append(
                f"d2: warning: {self.pendentes} change(s) of core.uc_polygons wait to be "
                "applied to the mirror; this connection is read-only (a hot standby), so this "
                "answer comes from the mirror before them: the worker on the primary applies "
                "them, and they arrive here by replication"
            )
        elif self.pendentes and self.somente_leitura:
            saida.append(
                f"d2: warning: {self.pendentes} change(s) of core.uc_polygons wait to be "
                "applied to the mirror; this connection is read-only, so this answer comes from "
                "the mirror before them. Apply them with `d2 mirror sync --wait` from a "
                "connection that may write (as the worker's role or the owner), or let a "
                "running `d2 worker` do it"
            )
        elif self.pendentes:
            saida.append(
                f"d2: warning: {self.pendentes} change(s) of core.uc_polygons wait to be "
                f"applied to the mirror ({self.motivo}); this answer comes from the mirror "
                "before them. Apply them with `d2 mirror sync --wait` (as the worker's role "
                "or the owner), or let a running `d2 worker` do it"
            )
        acompanhou = self.acompanhamento or {}
        if acompanhou.get("examinadas") or acompanhou.get("revisoes_examinadas"):
            saida.append(
                f"d2: follow-up: {acompanhou['examinadas']} stored answer(s) re-examined, "
                f"{acompanhou['alteradas']} changed and published; "
                f"{acompanhou['revisoes_resolvidas']} of {acompanhou['revisoes_examinadas']} "
                "review(s) now resolved"
            )
        if self.por_acompanhar:
            saida.append(
                f"d2: warning: the follow-up of the changed polygons is not done "
                f"({self.por_acompanhar} changed area(s) or queued answer(s) left): stored "
                "answers below may predate the change; a running `d2 worker` finishes it"
            )
        return saida


def atualizar(
    conn: db.Connection,
    prazo_s: float,
    *,
    seguir: resolver.NearRule | None = None,
) -> Freshness:
    """Apply the waiting changes of core.uc_polygons to the mirror within prazo_s; with
    seguir (the near rule in force), then re-examine the stored answers they touch within
    what is left of it.
    conn must be in autocommit mode. Never raises for a lock held, a time bound or a
    missing privilege: those are in the result."""
    inicio = time.monotonic()
    estado = Freshness()
    esperando = mirror.pendentes(conn)
    if esperando:
        try:
            estado.aplicado = mirror.aplicar(conn, esperar=True, prazo_s=prazo_s)
        except errors.LockTimeout as exc:
            quem = "; ".join(db.descrever_sessao(s) for s in exc.sessoes)
            estado.motivo = f"another applier held the mirror's lock for {prazo_s:g} s" + (
                f": {quem}" if quem else ""
            )
        except errors.StatementTimeout:
            estado.motivo = f"applying them took longer than {prazo_s:g} s"
        except errors.ReadOnlySession:
            estado.motivo = "this connection is read-only"
            estado.somente_leitura = "standby" if db.em_standby(conn) else "sessao"
        except errors.PermissionDenied:
            estado.motivo = "this database role may not apply them"
        estado.pendentes = mirror.pendentes(conn)
        if not estado.pendentes:
            estado.motivo = None
    if seguir is not None:
        restante = prazo_s - (time.monotonic() - inicio)
        try:
            if regeo.por_acompanhar(conn) and restante > 0:
                estado.acompanhamento = regeo.acompanhar(conn, regra=seguir, prazo_s=restante)
            estado.por_acompanhar = regeo.por_acompanhar(conn)
        except errors.PermissionDenied:
            estado.por_acompanhar = regeo.por_acompanhar(conn)
    return estado
