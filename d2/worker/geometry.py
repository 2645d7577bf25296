"""The geometry stage: every geometry step of the territory, on a thread and a database
connection of its own while this worker leads, never in the demand loop.

Citizen drawings (d2/territorio/comunitario.py), the event-synced replica's events
(d2/territorio/replica.py), the mirror's apply of what writers of core.uc_polygons
recorded (d2/territorio/mirror.py) and the re-georeferencing follow-up (d2/ops/regeo.py)
run here, in turn. A hostile drawing or polygon costs this thread, bounded by the caps
of the SQL functions (d2.territorio_validar, d2.mirror_sync) and by a statement_timeout
on this connection: the demands' loop goes on resolving GPS points meanwhile (the
chaos scenario hostile_drawing holds it to that). The leader's demand loop still brings
the mirror up to date once at boot, so a backlog resolves against today's polygons.
"""

from __future__ import annotations

import logging
import threading
import time

from d2 import config, db, errors, locks
from d2.ops import regeo
from d2.territorio import comunitario, mirror, replica, resolver

log = logging.getLogger(__name__)

# The follow-up's slice per round: what is left waits for the next one.
FATIA_ACOMPANHAMENTO_S = 0.25


class GeometryStage:
    """One round at a time: drawings, the replica, the mirror, a slice of the follow-up."""

    def __init__(self, settings: config.Settings, parar: threading.Event) -> None:
        self.settings = settings
        self.regra = resolver.NearRule.de(settings)
        self.parar = parar
        self._acordar = threading.Event()
        self.mirror_preso_desde: float | None = None
        """Since when (monotonic) the rounds have been unable to apply waiting changes of
        core.uc_polygons (another session holds the appliers' lock, or the apply fails);
        None while they apply them. The worker's health reads it (d2.worker.health.Watch)."""

    def acordar(self) -> None:
        self._acordar.set()

    def round(self, conn: db.Connection, *, fatia_s: float | None) -> bool:
        """One round; True when follow-up work is left for the next one. conn must be in
        autocommit mode."""
        comunitario.drenar(conn, self.settings)
        if replica.fonte(conn) == "eventos":
            replica.drenar(conn, self.settings)  # the mirror's polygons, from the log
        # A drawing just accepted is in force before the follow-up.
        if mirror.acompanhar(conn):
            self.mirror_preso_desde = None
        elif self.mirror_preso_desde is None:
            self.mirror_preso_desde = time.monotonic()
        feito = regeo.acompanhar(conn, regra=self.regra, prazo_s=fatia_s)
        if feito["alteradas"] or feito["revisoes_resolvidas"]:
            log.info(
                "Re-georreferenciamento: respostas seguiram o território",
                extra={k: feito[k] for k in ("areas", "examinadas", "alteradas",
                                             "revisoes_resolvidas")},
            )  # fmt: skip
        return regeo.por_acompanhar(conn) > 0

    def drenar(self, conn: db.Connection) -> None:
        """Every round's work until none is left (d2 worker --drain), on the caller's
        thread and connection."""
        while self.round(conn, fatia_s=None):
            pass

    def executar(self, url: str) -> None:
        """The stage's thread: rounds every poll interval (at once while the follow-up has
        work left), reconnecting after a transient failure, until parar is set."""
        espera = 0.5
        while not self.parar.is_set():
            try:
                with (
                    db.connect(url, autocommit=True, application_name="d2-territorio") as conn,
                    locks.limites(conn, statement_s=self.settings.territorio_timeout_s),
                ):
                    espera = 0.5
                    while not self.parar.is_set():
                        resta = self.round(conn, fatia_s=FATIA_ACOMPANHAMENTO_S)
                        if not resta:
                            self._acordar.wait(self.settings.poll_interval_s)
                            self._acordar.clear()
            except errors.D2Error as exc:
                if db.conexao_perdida(exc):
                    # Also when the session died under a stage told to stop (every
                    # failover ends all sessions at once): the worker reconnects.
                    log.error(
                        "Conexão perdida; reconectando",
                        extra={"estagio": "territorio", "erro": db.primeira_linha(exc),
                               "espera_s": espera},
                    )  # fmt: skip
                elif db.is_transient(exc):
                    log.error("Território: banco indisponível", extra={"espera_s": espera})
                else:
                    log.exception("Estágio do território falhou; recomeçando")
                self.parar.wait(espera)
                espera = min(espera * 2, 30.0)
