"""The worker's health: its state (what /readyz, /healthz and the metrics read), the
leader's watch over what holds its output back past its bounds (the event log's fence,
the mirror's apply), and the liveness decision /healthz answers with
(d2.worker.metrics_http serves it).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from d2 import config, db
from d2.eventlog import bus
from d2.handler import handler
from d2.territorio import mirror
from d2.worker import geometry, metrics

# The watch's lines are the loop's (logs are a fixed interface).
log = logging.getLogger("d2.worker.loop")


@dataclass
class State:
    """What a supervisor (readiness/liveness) and the metrics read."""

    pronto: bool = False
    lider: bool = False
    ultimo_avanco: float = field(default_factory=time.monotonic)
    # Since when this worker has been waiting for the leadership (None: leading, or
    # not asked yet), and for how long that may last before /healthz says 503 (0: ever).
    standby_desde: float | None = None
    limite_standby_s: float = 0.0
    # What holds this worker's events or mirror back past its bound, named ("cerca",
    # "mirror"; see Watch.vigiar); /healthz turns 503 while it is not empty.
    alertas: dict[str, dict[str, Any]] = field(default_factory=dict)
    resultado: handler.Result = field(default_factory=handler.Result)
    # The geocoder of the address path while leading (local, http, nenhum; None: off or
    # not leading): /healthz says it, so "no Nominatim" is seen, not guessed.
    geocodificador: str | None = None


class WorkerState(Protocol):
    """What the endpoints read from the worker (State satisfies it)."""

    pronto: bool
    lider: bool
    ultimo_avanco: float
    standby_desde: float | None
    limite_standby_s: float
    geocodificador: str | None
    alertas: dict[str, dict[str, Any]]
    """What holds the worker's events or mirror back past its bound ("cerca", "mirror"),
    each with its "motivo" and the sessions named; empty when nothing does."""


# The leader looks at what holds its output back (Watch.vigiar) at most this often,
# when idle, and logs an alert again at most this often while it lasts.
_VIGIA_S = 1.0
_ALERTA_A_CADA_S = 60.0
_MENSAGENS_ALERTA = {
    "cerca": "Cerca do log de eventos retida por uma transação aberta",
    "mirror": "Espelho: mudanças de core.uc_polygons sem aplicar além do limite",
}


class Watch:
    """The leader's watch, kept across reconnects: the loop calls it when idle."""

    def __init__(
        self, settings: config.Settings, estado: State, metrics: metrics.Metrics | None
    ) -> None:
        self.settings = settings
        self.estado = estado
        self.metrics = metrics
        self._vigia_em = 0.0
        self._alertas_logados: dict[str, float] = {}  # when each alert was last logged

    def talvez(self, conn: db.Connection, geometry_stage: geometry.GeometryStage | None) -> None:
        """Watch, at most once a second: an idle worker polls many times a second."""
        if time.monotonic() - self._vigia_em >= _VIGIA_S:
            self.vigiar(conn, geometry_stage)
            self._vigia_em = time.monotonic()

    def vigiar(self, conn: db.Connection, geometry_stage: geometry.GeometryStage | None) -> None:
        """What holds this worker's output back past its bounds, named: committed demands
        behind the event log's fence (an open transaction with an id, anywhere in the
        cluster) for longer than D2_FENCE_MAX_SECONDS; waiting changes of
        core.uc_polygons the worker could not apply for longer than D2_MIRROR_MAX_SECONDS
        (another session holding the mirror's lock, or the apply failing). Each goes to
        /healthz (503, the session in the body), a WARNING log line (again every minute
        while it lasts) and the metrics. Neither can be a delay D-2 waits out: the
        session must end (docs/reliability.md, section 6)."""
        s = self.settings
        fence = bus.fence(conn, handler.TIPO_ENTRADA)
        alertas: dict[str, dict[str, Any]] = {}
        if s.fence_max_s and fence.retidos and fence.atraso_s > s.fence_max_s:
            sessao = bus.fence_holder(conn)
            quem = db.descrever_sessao(sessao) if sessao else "a transaction that has ended since"
            alertas["cerca"] = {
                "motivo": (
                    f"{fence.retidos} committed demand(s) held back for {fence.atraso_s:.0f} s "
                    f"(D2_FENCE_MAX_SECONDS {s.fence_max_s:g}) by the oldest open transaction "
                    f"of the cluster: {quem}; end it (pg_terminate_backend)"
                ),
                "retidos": fence.retidos,
                "retidos_s": round(fence.atraso_s, 1),
                "limite_s": s.fence_max_s,
                "sessao": sessao,
            }
        preso = geometry_stage.mirror_preso_desde if geometry_stage else None
        atraso_mirror = 0.0 if preso is None else time.monotonic() - preso
        if s.mirror_max_s and preso is not None and atraso_mirror > s.mirror_max_s:
            sessoes = mirror.lock_holders(conn)
            quem = "; ".join(db.descrever_sessao(x) for x in sessoes)
            alertas["mirror"] = {
                "motivo": (
                    f"{mirror.pendentes(conn)} change(s) of core.uc_polygons not applied for "
                    f"{atraso_mirror:.0f} s (D2_MIRROR_MAX_SECONDS {s.mirror_max_s:g}): "
                    + (f"the mirror's lock is held by {quem}" if quem else "the apply fails")
                ),
                "esperando_s": round(atraso_mirror, 1),
                "limite_s": s.mirror_max_s,
                "sessoes": sessoes,
            }
        self._anunciar(alertas)
        # The alerts' gauges before /healthz's state: a scrape after /healthz turned 200
        # must not still name a session that has let go.
        if self.metrics is not None:
            self.metrics.observar_alertas(alertas, atraso_mirror)
        self.estado.alertas = alertas
        if self.metrics is not None:
            self.metrics.atualizar_gauges(conn, fence)

    def _anunciar(self, alertas: dict[str, dict[str, Any]]) -> None:
        agora = time.monotonic()
        for nome, alerta in alertas.items():
            if agora - self._alertas_logados.get(nome, -_ALERTA_A_CADA_S) >= _ALERTA_A_CADA_S:
                log.warning(_MENSAGENS_ALERTA[nome], extra=alerta)
                self._alertas_logados[nome] = agora
        for nome in set(self._alertas_logados) - set(alertas):
            del self._alertas_logados[nome]
            log.info(_MENSAGENS_ALERTA[nome] + ": terminou")


def vivo(estado: WorkerState | None, limite_s: float) -> tuple[bool, dict[str, Any]]:
    """Liveness: the loop moved (a batch, a poll, a standby check) within limite_s, and
    nothing holds its events or its mirror back past their bounds (estado.alertas)."""
    if estado is None:
        return False, {"motivo": "worker not started"}
    agora = time.monotonic()
    parado = agora - estado.ultimo_avanco
    corpo: dict[str, Any] = {
        "ultimo_avanco_s": round(parado, 3),
        "limite_s": limite_s,
        "lider": estado.lider,
    }
    if estado.geocodificador is not None:
        corpo["geocodificador"] = estado.geocodificador
    if estado.standby_desde is not None and estado.limite_standby_s > 0:
        # A standby that never gets the leadership is not healthy where one worker
        # should lead (D2_STANDBY_MAX_SECONDS): say so instead of 200 forever.
        em_standby = agora - estado.standby_desde
        corpo |= {"standby_s": round(em_standby, 3), "limite_standby_s": estado.limite_standby_s}
        if em_standby > estado.limite_standby_s:
            return False, corpo | {"motivo": "standby beyond D2_STANDBY_MAX_SECONDS"}
    if parado > limite_s:
        return False, corpo
    alertas = dict(estado.alertas)
    if alertas:
        # The loop moves, but what it does reaches nobody: a restart does not help, the
        # session named in the body must end (docs/reliability.md, section 6).
        motivos = "; ".join(str(a["motivo"]) for a in alertas.values())
        return False, corpo | {"status": "degraded", "motivo": motivos} | alertas
    return True, corpo
