"""The handler of spec 3.3, for a batch of events at a time (a batch of one is the spec's
per-event path, with the same outcome for every event).

Order per event: (1) idempotency by event_id → republish; (2) no coordinates → discard;
(3) invalid coordinates → discard; (4) cache, else d2.resolver_territorio → no polygon:
the near rule (d2.resolver_proximo: one município within D2_REVISAO_DISTANCIA_M), else the
review queue; (5) store the resolution in its own commit; (6)+(7) publish, mark processed
and move the cursor in one transaction (docs/design.md, decision 5). Malformed events,
and events from an origem outside D2_DEMANDA_ORIGENS, go to the dead letters and the
cursor moves on (docs/design.md, decision 7). A demanda_id another event holds is a dead
letter when both events say the same (a producer's retry) and a conflict for an operator
when they do not (never first-wins: a copy could take a real demand's place). Every
event ends in exactly one of: resolution, processed discard, pending review, conflict,
dead letter.

This module decides (steps 1-4; what needs no database is d2.handler.classification's) and
concludes (steps 5-7, written by d2.handler.conclusion); the rows and events it writes are
built by d2.handler.outputs, the log line of each outcome by d2.handler.outcome_logs. When
a batch fails as a whole, retrying it event by event is the worker's
(d2.worker.loop.processar), each event through Handler.tratar. An address-only demand is
parked (step 4 has no point to resolve); the geocoding stage later resumes it
(Handler.retomar) and the handler concludes it from the address path's answer
(Handler.concluir_enderecos): every outcome is set in this folder.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from d2 import config, db, errors
from d2.eventlog import bus, consumer
from d2.handler import conclusion, geo_cache, outcome_logs, outputs
from d2.handler.classification import Outcome, Plan, classificar_batch, morto
from d2.handler.outputs import TIPO_SAIDA
from d2.territorio import resolver

if TYPE_CHECKING:
    # Names of the address path only: a worker whose demands all carry GPS never loads
    # it (d2.worker.stages).
    from d2.geocoder import question
    from d2.geocoder.answer import Geocoding

log = logging.getLogger("d2.handler")

CONSUMER = "D-2"
ORIGEM = "D-2"
TIPO_ENTRADA = "demanda.normalizada"
# confianca_geo of a GPS point answered by the near rule (the Registry's values: alta is
# containment's; docs/design.md, decision 12).
CONFIANCA_PROXIMIDADE = "media"
# The worker's cursor over TIPO_ENTRADA, and the name of its dead letters.
CURSOR = consumer.Cursor(TIPO_ENTRADA, CONSUMER)


@dataclass
class Batch:
    """A batch decided (steps 1-4) and not yet written (steps 5-7)."""

    planos: list[Plan]
    resultado: Result


@dataclass
class Result:
    contagem: Counter[str] = field(default_factory=Counter)
    ultima: bus.Position = field(default_factory=lambda: bus.Position(0, 0))
    """The last event handled, in the log's reading order."""
    cache_hits: int = 0
    resolvidos_sql: int = 0
    por_nivel: Counter[int] = field(default_factory=Counter)
    duracao_pip_s: float = 0.0

    def somar(self, outro: Result) -> None:
        self.contagem.update(outro.contagem)
        self.ultima = max(self.ultima, outro.ultima)
        self.cache_hits += outro.cache_hits
        self.resolvidos_sql += outro.resolvidos_sql
        self.por_nivel.update(outro.por_nivel)
        self.duracao_pip_s += outro.duracao_pip_s


@dataclass
class Retomada:
    """Parked events read again: their plans, and the addresses of those still waiting
    for the address path (by event_id)."""

    planos: list[Plan]
    enderecos: dict[uuid.UUID, question.Endereco]


def transitoria(exc: BaseException) -> bool:
    """A failure that says nothing about the events: retried later, never dead-lettered."""
    return db.is_transient(exc) or isinstance(exc, errors.PublishError)


class Handler:
    """The D-2 handler. One instance per worker: it owns the geo cache."""

    def __init__(self, settings: config.Settings, cache: geo_cache.GeoCache | None = None) -> None:
        self.settings = settings
        self.cache = cache or geo_cache.GeoCache(settings.cache_max_entries, settings.cache_ttl_s)
        # Steps 5-7, and the events whose publication failed.
        self.conclusao = conclusion.Conclusion(settings, cursor=CURSOR, origem=ORIGEM)
        self.regra = resolver.NearRule.de(settings)

    # --- boot (spec 4.4) -------------------------------------------------------------------

    def iniciar(self, conn: db.Connection) -> bus.Position:
        """Steps 1-2 of the boot: empty cache, cursor seeded (at the last event readers
        can see now, never overwriting a cursor). Returns the cursor."""
        self.cache.iniciar()
        with db.mapped_errors(), conn.transaction():
            CURSOR.semear(conn, no_inicio=False)
            self.conclusao.iniciar(conn)
        return self.cursor(conn)

    def cursor(self, conn: db.Connection) -> bus.Position:
        return CURSOR.ler(conn)

    # --- the handler -----------------------------------------------------------------------

    def tratar(self, conn: db.Connection, evento: bus.Evento, mover_cursor: bool = True) -> Result:
        """One event decided and concluded. A permanent failure of the handler on it
        concludes it as a dead letter; a transient one (database gone, publish failing
        after its retries) propagates and the cursor is held."""
        try:
            return self.concluir(conn, self.preparar(conn, [evento]), mover_cursor)
        except Exception as exc:
            if transitoria(exc):
                raise
            return self.concluir_em_dead_letter(conn, evento, exc, mover_cursor)

    def preparar(self, conn: db.Connection, eventos: list[bus.Evento]) -> Batch:
        """Steps 1-4 for a batch: idempotency, classification, cache, resolver. Reads only,
        so it may run on another connection while the previous batch is being written:
        events are unique in the log, so no earlier batch can still be writing a
        resolution this batch's idempotency check should see."""
        resultado = Result(ultima=bus.position(eventos[-1]))
        with db.mapped_errors():
            versao = conn.execute(db.q("mirror_version")).fetchone()
        if versao is not None:
            self.cache.observar_versao(int(versao["versao"]))
        planos = self.classificar(conn, eventos)
        self._resolver(conn, planos, resultado)
        outputs.preparar(planos)
        return Batch(planos, resultado)

    def classificar(self, conn: db.Connection, eventos: list[bus.Evento]) -> list[Plan]:
        """Steps 1-3: an event already resolved is republished (its stored resolution
        read here), any other classified (d2.handler.classification)."""
        with db.mapped_errors():
            existentes = {
                row["event_id"]: row
                for row in conn.execute(
                    db.q("resolucoes_by_event_ids"), {"ids": [e.event_id for e in eventos]}
                )
            }
        return classificar_batch(eventos, existentes, self.settings)

    def retomar(self, conn: db.Connection, event_ids: list[uuid.UUID]) -> Retomada:
        """The events parked in d2.geocodificacoes_pendentes, read again from the log and
        classified: the queue keeps only their ids, and an event is immutable, so its plan
        is the one it had, unless its demanda was resolved meanwhile (then republished)
        or the geocoding stage was turned off (then discarded, as without it)."""
        planos = self.classificar(conn, bus.ler_eventos(conn, event_ids))
        enderecos: dict[uuid.UUID, question.Endereco] = {}
        for plano in planos:
            plano.da_fila = True
            if plano.outcome == Outcome.GEOCODIFICACAO_PENDENTE and plano.endereco is not None:
                enderecos[plano.evento.event_id] = plano.endereco
        return Retomada(planos, enderecos)

    def concluir_enderecos(
        self,
        conn: db.Connection,
        planos: list[Plan],
        geocodings: dict[uuid.UUID, Geocoding],
        esgotados: dict[uuid.UUID, str],
    ) -> Result:
        """Steps 5-7 for resumed plans: an address's Geocoding becomes its outcome (its UC
        and point, or endereco_nao_resolvido with the reason), an address Nominatim failed
        too often a dead letter (esgotados: event_id → reason); every plan leaves the
        queue. A Geocoding still unavailable must not be here: it waits in the queue."""
        for plano in planos:
            ident = plano.evento.event_id
            if ident in esgotados:
                morto(plano, esgotados[ident])
            elif ident in geocodings and plano.outcome == Outcome.GEOCODIFICACAO_PENDENTE:
                self._geocodificada(plano, geocodings[ident])
        outputs.preparar(planos)
        return self.concluir(conn, Batch(planos, Result()), mover_cursor=False)

    def concluir(self, conn: db.Connection, batch: Batch, mover_cursor: bool = True) -> Result:
        """Steps 5-7 for a prepared batch: store, publish, mark processed, move the cursor."""
        planos, resultado = batch.planos, batch.resultado
        self.conclusao.gravar_resolucoes(conn, planos)
        try:
            novos_pendentes = bus.com_retry(
                lambda: self.conclusao.fechar(conn, planos, resultado.ultima, mover_cursor),
                descricao=f"publicar {TIPO_SAIDA}",
            )
        except errors.PublishError as exc:
            self.conclusao.registrar_falha_publicacao(conn, planos, exc)
            raise
        outcome_logs.registrar(conn, planos, novos_pendentes)
        resultado.por_nivel.update(
            p.resolucao.nivel_minimo_resolvido
            for p in planos
            if p.outcome == Outcome.GEORREFERENCIADA and p.resolucao is not None
        )
        resultado.contagem.update(str(p.outcome) for p in planos)
        return resultado

    def _resolver(self, conn: db.Connection, planos: list[Plan], resultado: Result) -> None:
        faltam: list[tuple[Plan, str]] = []
        for plano in planos:
            if plano.outcome is not None:
                continue
            assert plano.lat is not None and plano.lng is not None
            chave = geo_cache.chave(plano.lat, plano.lng)
            hit, valor = self.cache.obter_chave(chave)
            if hit:
                resultado.cache_hits += 1
                self._decidir(plano, valor)
            else:
                faltam.append((plano, chave))
        if not faltam:
            return
        pontos = [(p.lat, p.lng) for p, _ in faltam if p.lat is not None and p.lng is not None]
        inicio = time.perf_counter()
        # A polygon's answer, else the near rule's (a beach, a river bank).
        achados = resolver.resolver_com_regra(conn, pontos, self.regra)
        resultado.duracao_pip_s += time.perf_counter() - inicio
        for (plano, chave), valor in zip(faltam, achados, strict=True):
            self.cache.definir_chave(chave, valor)
            self._decidir(plano, valor)
        resultado.resolvidos_sql += len(faltam)

    @staticmethod
    def _decidir(plano: Plan, valor: resolver.Resolucao | None) -> None:
        plano.resolucao = valor
        plano.outcome = Outcome.REVISAO_PENDENTE if valor is None else Outcome.GEORREFERENCIADA
        if valor is not None and valor.distancia_m is not None:
            # A device's point no polygon holds, answered by the near rule: the method
            # stays gps, the confidence is the one below containment.
            plano.confianca = CONFIANCA_PROXIMIDADE

    @staticmethod
    def _geocodificada(plano: Plan, g: Geocoding) -> None:
        assert g.indisponivel is None, "an unavailable address waits; it is not concluded"
        plano.geocodificacao = {
            "event_id": plano.event_id_texto,
            "demanda_id": plano.demanda_id_texto,
            "precisao": g.precisao,
            "passo": g.passo,
            "entendido": g.entendido,
            "consultas": g.consultas,
            "motivo": None,
        }
        if g.resolucao is not None and g.metodo is not None and g.confianca is not None:
            plano.outcome = Outcome.GEORREFERENCIADA
            plano.resolucao, plano.lat, plano.lng = g.resolucao, g.lat, g.lng
            plano.metodo, plano.confianca = g.metodo, g.confianca
            plano.endereco_geocodificado = g.nome
        else:
            plano.outcome = Outcome.ENDERECO_NAO_RESOLVIDO
            plano.motivo = plano.geocodificacao["motivo"] = g.motivo_final

    def concluir_em_dead_letter(
        self,
        conn: db.Connection,
        evento: bus.Evento,
        exc: BaseException,
        mover_cursor: bool = True,
    ) -> Result:
        """Conclude one event the handler itself failed on (exc, not transient): its dead
        letter, and the cursor past it."""
        motivo = f"handler failed: {errors.texto_seguro(exc)}"
        with db.mapped_errors(), conn.transaction():
            CURSOR.registrar_dead_letter(conn, evento, motivo[:2000])
            if mover_cursor:
                CURSOR.avancar(conn, bus.position(evento))
        log.error(
            "Evento enviado à DLQ",
            extra={
                "event_id": evento.event_id,
                "sequence_number": evento.sequence_number,
                "motivo": motivo,
            },
        )
        resultado = Result(ultima=bus.position(evento))
        resultado.contagem[str(Outcome.DEAD_LETTER)] += 1
        return resultado
