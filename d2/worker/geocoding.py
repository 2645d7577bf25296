"""The geocoding stage: takes the address demands the handler parked in
d2.geocodificacoes_pendentes, asks the geocoder, decides, and concludes each through the
handler's own steps 5-7 (d2.handler.handler), its queue row leaving in the same transaction.

A demand whose query the geocoder did not answer stays parked with a backoff
(doubling from 1 s up to D2_GEOCODER_RETRY_MAX, jittered) and is tried again; nothing
else waits for it: the handler parks and moves on, and this stage runs on its own
thread and connection. Due rows are taken by due time, so one that keeps failing waits
behind those parked meanwhile; one the geocoder fails D2_GEOCODER_TRIES_MAX times while
it is answering (it answered other addresses, or failed only this one and its status says
it is fine) goes to the dead letters, where `d2 dlq retry` can send it back. A geocoder
that is down, or slow for everyone, costs no address its tries.

Decision, with D2_GEOCODER_LADDER=on (the default): the address ladder
(d2.geocoder.ladder: the fields understood, the place known, named steps from the house
number down to the município). Off: the older free-text path, kept as it was
(d2.worker.geocoding_free_text). Either way one row per concluded address goes to
d2.geocodificacoes (d2.v_geocodificacoes); what a round did is a Round
(d2.worker.geocoding_round).
"""

from __future__ import annotations

import logging
import random
import threading
import uuid
from typing import Any

import prometheus_client

from d2 import config, db
from d2.eventlog import bus
from d2.geocoder import inference, ladder, nominatim, nominatim_search
from d2.handler import cache, classification, handler, outputs
from d2.worker.geocoding_free_text import FreeTextPath
from d2.worker.geocoding_round import Round, descartar, registro, somar

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


class AddressCache(
    cache.LRUCache[nominatim_search.Match | None | tuple[nominatim_search.Match, ...]]
):
    """The geocoder's answers by normalised query (bounded, with a TTL), emptied when a
    new Nominatim import is seen: a free-text query's best match, or a ladder search's
    matches (nominatim_search.Consulta.chave)."""

    geracao: int | None = None

    def observar_geracao(self, geracao: int | None) -> None:
        if geracao != self.geracao:
            self.limpar()
            self.geracao = geracao


class GeocodingStage:
    def __init__(
        self,
        settings: config.Settings,
        geocodificador: nominatim.Geocoder,
        *,
        metricas: GeocodingMetrics | None = None,
        cache: AddressCache | None = None,
        parar: threading.Event | None = None,
    ) -> None:
        self.settings = settings
        # Set when the worker stops: a round then asks nothing more of the geocoder (what
        # it did not ask waits for the next worker), so a slow geocoder cannot hold a
        # shutdown longer than one block of requests.
        self.parar = parar or threading.Event()
        self.geocodificador = geocodificador
        self.metricas = metricas
        # Not `cache or ...`: an empty cache is falsy (it has a length).
        self.cache = (
            cache
            if cache is not None
            else AddressCache(settings.geocoder_cache_max, settings.geocoder_cache_ttl_s)
        )
        # D2_GEOCODER_LADDER=off: the free-text path, over the same geocoder and cache.
        self.free_text = FreeTextPath(settings, geocodificador, self.cache, self.parar)
        self.servico = handler.Handler(settings)
        self.total = Round()
        self._acordar = threading.Event()

    def acordar(self) -> None:
        """New demands were parked (or the worker stops): look now, not at the next poll."""
        self._acordar.set()

    # --- loops ----------------------------------------------------------------------------

    def drenar(self, conn: db.Connection) -> Round:
        """Rounds until nothing parked is due; a round in which the geocoder answered
        nothing at all ends it too (what is left waits for its backoff)."""
        soma = Round()
        while not self.parar.is_set():
            rodada = self.rodada(conn)
            somar(soma, rodada)
            if rodada.concluidas == 0:
                break
        return soma

    def executar(self, url: str, parar: threading.Event, espera_max_s: float) -> None:
        """The worker's thread: rounds while there is work due, else sleep until the next
        row falls due (at most espera_max_s). Database failures: reconnect, with backoff."""
        espera = 0.5
        while not parar.is_set():
            try:
                with db.connect(url, autocommit=True, application_name="d2-geocoder") as conn:
                    while not parar.is_set():
                        rodada = self.rodada(conn)
                        espera = 0.5
                        if rodada.concluidas:
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

    def rodada(self, conn: db.Connection) -> Round:
        rodada = Round()
        with db.mapped_errors():
            conn.execute(db.q("geocoder_orphans"))
            devidas = conn.execute(
                db.q("geocoder_due"), {"limite": self.settings.geocoder_batch}
            ).fetchall()
            if not devidas:
                return rodada
            ultima = conn.execute(db.q("nominatim_import_last")).fetchone()
        self.cache.observar_geracao(int(ultima["id"]) if ultima else None)
        tentativas = {row["event_id"]: int(row["tentativas"]) for row in devidas}
        falhas = {row["event_id"]: int(row["falhas"]) for row in devidas}
        eventos = bus.ler_eventos(conn, list(tentativas))
        planos = self._planos(conn, eventos)
        enderecos = [
            p for p in planos if p.outcome == classification.Outcome.GEOCODIFICACAO_PENDENTE
        ]
        if self.settings.geocoder_ladder:
            adiados = self._geocodificar_escada(conn, enderecos, rodada)
        else:
            adiados = self.free_text.geocodificar(conn, enderecos, rodada)
        proprias = self._falhas_proprias(adiados, rodada)
        if proprias:
            self._esgotar(enderecos, adiados, falhas, rodada)
        prontos = [p for p in planos if p.evento.event_id not in adiados]
        if prontos:
            outputs.preparar(prontos)
            lote = handler.Batch(prontos, handler.Result())
            rodada.resultado = self.servico.concluir(conn, lote, mover_cursor=False)
            rodada.concluidas = len(prontos)
        if adiados:
            self._adiar(conn, adiados, tentativas, proprias)
            rodada.adiadas = len(adiados)
        if self.metricas is not None:
            for resultado, n in rodada.resultados.items():
                self.metricas.total.labels(resultado).inc(n)
            for passo, n in rodada.consultas.items():
                self.metricas.consultas.labels(passo).inc(n)
            if rodada.ceps_contraditorios:
                self.metricas.ceps_contraditorios.inc(rodada.ceps_contraditorios)
        somar(self.total, rodada)
        return rodada

    def _planos(self, conn: db.Connection, eventos: list[bus.Evento]) -> list[classification.Plan]:
        """Each parked event classified again (it is immutable: the same answer, unless
        the geocoder was turned off meanwhile), or republished if already resolved."""
        planos = self.servico.classificar(conn, eventos)
        for plano in planos:
            plano.da_fila = True
        return planos

    def _geocodificar_escada(
        self, conn: db.Connection, planos: list[classification.Plan], rodada: Round
    ) -> dict[uuid.UUID, str]:
        """Decide every address plan down the ladder; returns the ones to postpone."""
        desfechos = ladder.geocodificar(
            conn,
            self.geocodificador,
            self.cache,
            [p.endereco for p in planos if p.endereco is not None],
            bloco=max(1, self.settings.geocoder_concorrencia * 4),
            parar=self.parar.is_set,
        )
        adiados: dict[uuid.UUID, str] = {}
        for plano, d in zip(planos, desfechos, strict=True):
            rodada.consultas.update(d.por_passo)
            if d.indisponivel is not None:
                adiados[plano.evento.event_id] = d.indisponivel
                rodada.resultados["indisponivel"] += 1
                continue
            if d.consultas:
                rodada.respondeu = True
            if d.contexto is not None and d.contexto.cep_contraditorio:
                rodada.ceps_contraditorios += 1
            plano.geocodificacao = registro(plano, d.precisao, d.passo, d.entendido, d.consultas)
            if d.resolucao is not None and d.metodo is not None and d.confianca is not None:
                plano.outcome = classification.Outcome.GEORREFERENCIADA
                plano.resolucao, plano.lat, plano.lng = d.resolucao, d.lat, d.lng
                plano.metodo, plano.confianca = d.metodo, d.confianca
                plano.endereco_geocodificado = d.nome
                rodada.resultados[d.metodo] += 1
            else:
                descartar(plano, d.motivo or str(inference.Reason.NAO_ENCONTRADO), rodada)
        return adiados

    def _falhas_proprias(self, adiados: dict[uuid.UUID, str], rodada: Round) -> bool:
        """Whether the searches left unanswered are their addresses' own failures: the
        geocoder answered others in the round, or it failed only this one address and
        its status says it is fine. Not when the worker stops, nor when it failed every
        address of a round (down, or slow for everyone)."""
        if not adiados or self.parar.is_set():
            return False
        return rodada.respondeu or (len(adiados) == 1 and self.geocodificador.saudavel())

    def _esgotar(
        self,
        planos: list[classification.Plan],
        adiados: dict[uuid.UUID, str],
        falhas: dict[Any, int],
        rodada: Round,
    ) -> None:
        """Addresses the geocoder, while answering, failed D2_GEOCODER_TRIES_MAX times
        end in the dead letters (no address in the reason) instead of waiting again."""
        maximo = self.settings.geocoder_tentativas_max
        for plano in planos:
            event_id = plano.evento.event_id
            if event_id in adiados and falhas.get(event_id, 0) + 1 >= maximo:
                classification.morto(
                    plano,
                    f"the geocoder failed this address {maximo} times while answering "
                    f"(last: {adiados.pop(event_id)[:80]})",
                )
                rodada.resultados["esgotada"] += 1

    def _adiar(
        self,
        conn: db.Connection,
        adiados: dict[uuid.UUID, str],
        tentativas: dict[Any, int],
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
