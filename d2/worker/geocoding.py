"""The geocoding stage: when to read the address demands the handler parked in
d2.geocodificacoes_pendentes, and how long each waits. It decides nothing about an
address: each round the handler reads the due events again (Handler.retomar), the
address path reads their addresses (d2.geocoder.address.AddressPath), and the handler
concludes them through its own steps 5-7 (Handler.concluir_enderecos), each queue row
leaving in the same transaction.

The address path is built by the stage itself, on the connection of the round that
first needs it (with --drain), or on the stage's own thread once the worker has
committed its first batch: its modules, the choice of Nominatim and the names it reads
cost a batch of GPS demands nothing, and a drain whose log holds no address never
loads them (docs/notes/drain.md, "The worker's start").

An address Nominatim did not answer stays parked with a backoff (doubling from 1 s up to
D2_GEOCODER_RETRY_MAX, jittered) and is tried again; nothing else waits for it: the
handler parks and moves on, and this stage runs on its own thread and connection. Due
rows are taken by due time, so one that keeps failing waits behind those parked
meanwhile; one Nominatim fails D2_GEOCODER_TRIES_MAX times while it is answering (it
answered other addresses, or failed only this one and its status says it is fine) goes to
the dead letters, where `d2 dlq retry` can send it back. A Nominatim that is down, or slow
for everyone, costs no address its tries.
"""

from __future__ import annotations

import logging
import random
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import prometheus_client

from d2 import config, db
from d2.handler import handler

if TYPE_CHECKING:
    from d2.geocoder.address import AddressPath
    from d2.geocoder.answer import Geocoding

log = logging.getLogger(__name__)

_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class GeocodingMetrics:
    """d2_geocodificacoes_total{resultado}, the searches by ladder step, the CEPs set
    aside, and the geocoder's request durations. The labels are bounded sets (endereco,
    inferencia, the discard reasons, indisponivel, esgotada; the ladder's step names):
    never an address."""

    def __init__(self, registry: prometheus_client.CollectorRegistry) -> None:
        self.total = prometheus_client.Counter(
            "d2_geocodificacoes",
            "Address demands through the geocoding stage, by result.",
            ["resultado"],
            registry=registry,
        )
        self.consultas = prometheus_client.Counter(
            "d2_geocodificacao_consultas",
            "Geocoder searches made by the address ladder, by step.",
            ["passo"],
            registry=registry,
        )
        self.ceps_contraditorios = prometheus_client.Counter(
            "d2_geocodificacao_ceps_contraditorios",
            "Address demands whose CEP contradicted the place the text names (set aside).",
            registry=registry,
        )
        self.duracao = prometheus_client.Histogram(
            "d2_geocodificacao_duracao_seconds",
            "Time of one geocoder request (Nominatim search).",
            buckets=_BUCKETS,
            registry=registry,
        )


@dataclass
class Round:
    """What one round of the stage did."""

    concluidas: int = 0
    adiadas: int = 0
    resultados: Counter[str] = field(default_factory=Counter)  # Geocoding.resultado, esgotada
    resultado: handler.Result = field(default_factory=handler.Result)
    consultas: Counter[str] = field(default_factory=Counter)  # searches, by ladder step
    ceps_contraditorios: int = 0
    respondeu: bool = False  # Nominatim answered some search of the round

    def somar(self, outra: Round) -> None:
        self.concluidas += outra.concluidas
        self.adiadas += outra.adiadas
        self.resultados.update(outra.resultados)
        self.resultado.somar(outra.resultado)
        self.consultas.update(outra.consultas)
        self.ceps_contraditorios += outra.ceps_contraditorios


class GeocodingStage:
    """The stage's loop over one worker's address path and handler. abrir builds the
    address path on a connection, once (preparar); parar is the worker's stop signal,
    which abrir gives the path too: one signal, so the stage stops its rounds when the
    path stops asking Nominatim."""

    def __init__(
        self,
        settings: config.Settings,
        abrir: Callable[[db.Connection], AddressPath],
        parar: threading.Event,
        *,
        metrics: GeocodingMetrics | None = None,
    ) -> None:
        self.settings = settings
        self.parar = parar
        self.address_path: AddressPath | None = None
        """The address path, once built (preparar)."""
        self._abrir = abrir
        self.metrics = metrics
        self.handler = handler.Handler(settings)
        self.total = Round()
        self._acordar = threading.Event()
        self._liberado = threading.Event()

    def acordar(self) -> None:
        """New demands were parked (or the worker stops): look now, not at the next poll."""
        self._liberado.set()
        self._acordar.set()

    def liberar(self) -> None:
        """The worker committed its first batch (or found the log empty): the stage's
        thread may build the address path now, beside the loop instead of before it."""
        if not self._liberado.is_set():
            self._liberado.set()

    def preparar(self, conn: db.Connection) -> AddressPath:
        """The address path, built on conn the first time it is asked for."""
        if self.address_path is None:
            self.address_path = self._abrir(conn)
        return self.address_path

    def fechar(self) -> None:
        """Close the geocoder of the address path, if it was built."""
        if self.address_path is not None:
            self.address_path.geocodificador.fechar()

    # --- loops ----------------------------------------------------------------------------

    def drenar(self, conn: db.Connection) -> Round:
        """Rounds until nothing parked is due; a round in which Nominatim answered nothing
        at all ends it too (what is left waits for its backoff)."""
        soma = Round()
        while not self.parar.is_set():
            round_ = self.round(conn)
            soma.somar(round_)
            if round_.concluidas == 0:
                break
        return soma

    def executar(self, url: str, parar: threading.Event, espera_max_s: float) -> None:
        """The worker's thread: rounds while there is work due, else sleep until the next
        row falls due (at most espera_max_s). Database failures: reconnect, with backoff."""
        espera = 0.5
        self._liberado.wait()  # set by the worker's first batch, or when it stops
        while not parar.is_set():
            try:
                with db.connect(url, autocommit=True, application_name="d2-geocoder") as conn:
                    self.preparar(conn)
                    while not parar.is_set():
                        round_ = self.round(conn)
                        espera = 0.5
                        if round_.concluidas:
                            continue
                        with db.mapped_errors():
                            row = conn.execute(db.q("geocoder_next")).fetchone()
                        em_s = row["em_s"] if row and row["em_s"] is not None else espera_max_s
                        self._acordar.wait(min(max(float(em_s), 0.05), espera_max_s))
                        self._acordar.clear()
            except Exception as exc:
                if db.conexao_perdida(exc):
                    log.error(
                        "Conexão perdida; reconectando",
                        extra={"estagio": "geocodificacao", "erro": db.primeira_linha(exc),
                               "espera_s": espera},
                    )  # fmt: skip
                elif not db.is_transient(exc):
                    log.exception("Estágio de geocodificação falhou; recomeçando")
                else:
                    log.error("Geocodificação: banco indisponível", extra={"espera_s": espera})
                self._acordar.wait(espera)
                espera = min(espera * 2, 30.0)

    # --- one round ------------------------------------------------------------------------

    def round(self, conn: db.Connection) -> Round:
        """The due rows: read again by the handler, their addresses read by the address
        path, concluded by the handler; what Nominatim did not answer waits again."""
        round_ = Round()
        with db.mapped_errors():
            conn.execute(db.q("geocoder_orphans"))
            devidas = conn.execute(
                db.q("geocoder_due"), {"limite": self.settings.geocoder_batch}
            ).fetchall()
        if not devidas:
            return round_
        address_path = self.preparar(conn)
        tentativas = {row["event_id"]: int(row["tentativas"]) for row in devidas}
        falhas = {row["event_id"]: int(row["falhas"]) for row in devidas}
        retomada = self.handler.retomar(conn, list(tentativas))
        ids = list(retomada.enderecos)
        geocodings = dict(
            zip(
                ids,
                address_path.geocodificar(conn, list(retomada.enderecos.values())),
                strict=True,
            )
        )
        adiados = {i: g.indisponivel for i, g in geocodings.items() if g.indisponivel is not None}
        self._contar(geocodings.values(), round_)
        proprias = self._falhas_proprias(address_path, adiados, round_)
        esgotados = self._esgotados(adiados, falhas) if proprias else {}
        round_.resultados["esgotada"] += len(esgotados)
        prontos = [p for p in retomada.planos if p.evento.event_id not in adiados]
        if prontos:
            round_.resultado = self.handler.concluir_enderecos(conn, prontos, geocodings, esgotados)
            round_.concluidas = len(prontos)
        if adiados:
            self._adiar(conn, adiados, tentativas, proprias)
            round_.adiadas = len(adiados)
        self._medir(round_)
        self.total.somar(round_)
        return round_

    @staticmethod
    def _contar(geocodings: Iterable[Geocoding], round_: Round) -> None:
        for g in geocodings:
            round_.resultados[g.resultado] += 1
            round_.consultas.update(g.por_passo)
            round_.respondeu = round_.respondeu or (g.indisponivel is None and g.consultas > 0)
            if g.cep_contraditorio:
                round_.ceps_contraditorios += 1

    def _medir(self, round_: Round) -> None:
        if self.metrics is None:
            return
        for resultado, n in round_.resultados.items():
            self.metrics.total.labels(resultado).inc(n)
        for passo, n in round_.consultas.items():
            self.metrics.consultas.labels(passo).inc(n)
        if round_.ceps_contraditorios:
            self.metrics.ceps_contraditorios.inc(round_.ceps_contraditorios)

    def _falhas_proprias(
        self, address_path: AddressPath, adiados: dict[uuid.UUID, str], round_: Round
    ) -> bool:
        """Whether the searches left unanswered are their addresses' own failures:
        Nominatim answered others in the round, or it failed only this one address and
        its status says it is fine. Not when the worker stops, nor when it failed every
        address of a round (down, or slow for everyone)."""
        if not adiados or self.parar.is_set():
            return False
        return round_.respondeu or (len(adiados) == 1 and address_path.saudavel())

    def _esgotados(
        self, adiados: dict[uuid.UUID, str], falhas: dict[uuid.UUID, int]
    ) -> dict[uuid.UUID, str]:
        """Addresses Nominatim, while answering, failed D2_GEOCODER_TRIES_MAX times: they
        end in the dead letters (no address in the reason) instead of waiting again."""
        maximo = self.settings.geocoder_tentativas_max
        return {
            i: f"the geocoder failed this address {maximo} times while answering "
            f"(last: {adiados.pop(i)[:80]})"
            for i in list(adiados)
            if falhas.get(i, 0) + 1 >= maximo
        }

    def _adiar(
        self,
        conn: db.Connection,
        adiados: dict[uuid.UUID, str],
        tentativas: dict[uuid.UUID, int],
        proprias: bool,
    ) -> None:
        ids = list(adiados)
        esperas = [
            min(self.settings.geocoder_espera_max_s, 2.0 ** tentativas.get(i, 0))
            * (0.75 + random.random() / 2)
            for i in ids
        ]
        with db.mapped_errors():
            conn.execute(
                db.q("geocoder_postpone"),
                {
                    "event_ids": ids,
                    "esperas": esperas,
                    "erros": [adiados[i] for i in ids],
                    "falhas": [proprias] * len(ids),
                },
            )
        log.warning(
            "Geocodificador indisponível; demandas com endereço aguardam",
            extra={"adiadas": len(ids), "erro": next(iter(adiados.values()))},
        )
