"""The handler of spec 3.3, for a batch of events at a time (a batch of one is the spec's
per-event path, with the same outcome for every event).

Order per event: (1) idempotency by event_id → republish; (2) no coordinates → discard;
(3) invalid coordinates → discard; (4) cache, else d2.resolver_territorio → no polygon:
review queue; (5) store the resolution in its own commit; (6)+(7) publish, mark processed
and move the cursor in one transaction (DESIGN decision 5). Malformed events, and events
from an origem outside D2_DEMANDA_ORIGENS, go to the dead letters and the cursor moves on
(decision 7). A demanda_id another event holds is a dead letter when both events say the
same (a producer's retry) and a conflict for an operator when they do not (issue 29 item
7: never first-wins). Every event ends in exactly one of: resolution, processed discard,
pending review, conflict, dead letter.

This module decides (steps 1-4; what needs no database is d2.handler.classification's) and
concludes (steps 5-7); the rows and events it writes are built by d2.handler.outputs, the log
line of each outcome by d2.outcome_logs. When a batch fails as a whole, retrying it
event by event is the worker's (d2.worker.processar), each event through Handler.tratar.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

from psycopg.rows import tuple_row

from d2 import config, db, errors
from d2.eventlog import bus, dead_letters, wire
from d2.handler import cache, outcome_logs, outputs
from d2.handler.classification import (
    Outcome,
    Plan,
    classificar_lote,
    conteudo,
    em_conflito,
    morto,
)
from d2.handler.outputs import TIPO_SAIDA
from d2.territorio import resolver

log = logging.getLogger("d2.handler")

CONSUMIDOR = "D-2"
ORIGEM = "D-2"
TIPO_ENTRADA = "demanda.normalizada"


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


def _registrar_dead_letter(conn: db.Connection, evento: bus.Evento, erro: str) -> None:
    dead_letters.registrar(
        conn,
        consumidor=CONSUMIDOR,
        event_id=evento.event_id,
        tipo=evento.tipo,
        sequence_number=evento.sequence_number,
        erro=erro,
    )


# How a publish failure's dead letter starts (found again at boot by dlq_falhas_publicacao).
_FALHA_PUBLICACAO = "publish failed"


def _registrar_geocodificacoes(conn: db.Connection, planos: list[Plan]) -> None:
    """The geocoding stage's rows (d2.geocodificacoes), with the terminal state."""
    linhas = [p.geocodificacao for p in planos if p.geocodificacao is not None]
    if linhas:
        conn.execute(db.q("geocoder_record"), {"rows": wire.json_texto(linhas)})


def _mover_cursor(conn: db.Connection, ultima: bus.Position) -> None:
    conn.execute(
        db.q("cursor_advance"),
        {"tipo": TIPO_ENTRADA, "seq": ultima.sequencia, "transacao": ultima.transacao},
    )


def transitoria(exc: BaseException) -> bool:
    """A failure that says nothing about the events: retried later, never dead-lettered."""
    return db.is_transient(exc) or isinstance(exc, errors.PublishError)


class Handler:
    """The D-2 handler. One instance per worker: it owns the geo cache."""

    def __init__(self, settings: config.Settings, geo_cache: cache.GeoCache | None = None) -> None:
        self.settings = settings
        self.cache = geo_cache or cache.GeoCache(settings.cache_max_entries, settings.cache_ttl_s)
        self.falhas_publicacao: set[uuid.UUID] = set()
        """Events whose publication failed after its retries (spec 3.4/T9), each with a
        pending dead letter that the publication, when it succeeds, marks resolved."""

    # --- boot (spec 4.4) -------------------------------------------------------------------

    def iniciar(self, conn: db.Connection) -> bus.Position:
        """Steps 1-2 of the boot: empty cache, cursor seeded (at the last event readers
        can see now, never overwriting a cursor). Returns the cursor."""
        self.cache.iniciar()
        with db.mapped_errors(), conn.transaction():
            conn.execute(db.q("cursor_seed"), {"tipo": TIPO_ENTRADA})
            self.falhas_publicacao = dead_letters.falhas_de_publicacao(
                conn, CONSUMIDOR, _FALHA_PUBLICACAO
            )
        return self.cursor(conn)

    def cursor(self, conn: db.Connection) -> bus.Position:
        with db.mapped_errors():
            row = conn.execute(db.q("cursor_get"), {"tipo": TIPO_ENTRADA}).fetchone()
        if row is None:
            return bus.Position(0, 0)
        return bus.Position(int(row["last_transacao"]), int(row["last_sequence"]))

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
        resultado = Result(ultima=bus.posicao(eventos[-1]))
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
        return classificar_lote(eventos, existentes, self.settings)

    def concluir(self, conn: db.Connection, lote: Batch, mover_cursor: bool = True) -> Result:
        """Steps 5-7 for a prepared batch: store, publish, mark processed, move the cursor."""
        planos, resultado = lote.planos, lote.resultado
        self._gravar_resolucoes(conn, planos)
        try:
            novos_pendentes = bus.com_retry(
                lambda: self._fechar(conn, planos, resultado.ultima, mover_cursor),
                descricao=f"publicar {TIPO_SAIDA}",
            )
        except errors.PublishError as exc:
            self._registrar_falha_publicacao(conn, planos, exc)
            raise
        outcome_logs.registrar(conn, planos, novos_pendentes)
        resultado.por_nivel.update(
            p.resolucao.nivel_minimo_resolvido
            for p in planos
            if p.desfecho == Outcome.GEORREFERENCIADA and p.resolucao is not None
        )
        resultado.contagem.update(str(p.desfecho) for p in planos)
        return resultado

    def _resolver(self, conn: db.Connection, planos: list[Plan], resultado: Result) -> None:
        faltam: list[tuple[Plan, str]] = []
        for plano in planos:
            if plano.desfecho is not None:
                continue
            assert plano.lat is not None and plano.lng is not None
            chave = cache.chave(plano.lat, plano.lng)
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
        achados = resolver.resolver_muitos(conn, pontos)
        resultado.duracao_pip_s += time.perf_counter() - inicio
        for (plano, chave), valor in zip(faltam, achados, strict=True):
            self.cache.definir_chave(chave, valor)
            self._decidir(plano, valor)
        resultado.resolvidos_sql += len(faltam)

    @staticmethod
    def _decidir(plano: Plan, valor: resolver.Resolucao | None) -> None:
        plano.resolucao = valor
        plano.desfecho = Outcome.REVISAO_PENDENTE if valor is None else Outcome.GEORREFERENCIADA

    def _gravar_resolucoes(self, conn: db.Connection, planos: list[Plan]) -> None:
        """Step 5 in its own commit (spec 3.5): the resolution survives a publish failure."""
        novos = [p for p in planos if p.desfecho == Outcome.GEORREFERENCIADA]
        if not novos:
            return
        colunas = outputs.colunas_resolucoes([p.gravada for p in novos if p.gravada is not None])
        with db.mapped_errors(), conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
            gravados = {row[0] for row in cur.execute(db.q("resolucoes_insert"), colunas)}
            _registrar_geocodificacoes(conn, [p for p in novos if p.event_id_texto in gravados])
        recusados = [p for p in novos if p.event_id_texto not in gravados]
        for plano, (motivo, titular) in zip(
            recusados, self._disputar(conn, recusados), strict=True
        ):
            if titular is not None:
                em_conflito(plano, titular)
            else:
                morto(plano, motivo)

    def _disputar(
        self, conn: db.Connection, planos: list[Plan]
    ) -> list[tuple[str, uuid.UUID | None]]:
        """Events whose demanda another event holds (its resolution or review): a dead
        letter when both events say the same about where the demand is (a producer's
        retry), a conflict when they do not. Reads the holders' events from the log.
        Returns, per plan: (the dead letter's reason, None), or ("", the holding event)."""
        if not planos:
            return []
        with db.mapped_errors():
            donos = {
                row["demanda_id"]: (row["event_id"], row["como"])
                for row in conn.execute(
                    db.q("demanda_holders"), {"ids": [p.demanda_id for p in planos]}
                )
            }
        eventos = {
            e.event_id: e
            for e in bus.ler_eventos(
                conn,
                list({dono for dono, _ in donos.values()}),
                max_payload_bytes=self.settings.max_payload_bytes,
            )
        }
        decisoes: list[tuple[str, uuid.UUID | None]] = []
        for plano in planos:
            dono, como = donos.get(plano.demanda_id, (None, None))
            if dono is None:
                motivo = "already resolved or pending under another event"
            elif como == "resolucao":
                motivo = f"already resolved by event {dono}"
            else:
                motivo = "already pending review under another event"
            evento = eventos.get(dono) if dono is not None else None
            if (
                evento is not None
                and not isinstance(evento.payload, wire.UnreadablePayload)
                and conteudo(evento.payload) != conteudo(plano.evento.payload)
            ):
                decisoes.append(("", dono))
            else:
                decisoes.append((f"demanda_id {plano.demanda_id} {motivo}", None))
        return decisoes

    def _fechar(
        self, conn: db.Connection, planos: list[Plan], ultima: bus.Position, mover_cursor: bool
    ) -> set[uuid.UUID]:
        """Steps 6-7 (and the discard/review paths) in ONE transaction; returns the events
        that entered the review queue now."""
        with db.mapped_errors(), conn.transaction():
            revisao = [p for p in planos if p.desfecho == Outcome.REVISAO_PENDENTE]
            aceitos: set[uuid.UUID] = set()
            if revisao:
                linhas = [
                    {
                        "demanda_id": p.demanda_id_texto,
                        "event_id": p.event_id_texto,
                        "lat": p.lat,
                        "lng": p.lng,
                    }
                    for p in revisao
                ]
                aceitos = {
                    row["event_id"]
                    for row in conn.execute(
                        db.q("revisoes_insert"), {"rows": wire.json_texto(linhas)}
                    )
                }
            # A review refused: another event holds the demanda (a retry, or a conflict).
            recusadas = [p for p in revisao if p.evento.event_id not in aceitos]
            disputa = dict(
                zip(
                    (p.evento.event_id for p in recusadas),
                    self._disputar(conn, recusadas),
                    strict=True,
                )
            )
            conflitos = [p for p in planos if p.desfecho == Outcome.CONFLITO] + [
                p for p in recusadas if disputa[p.evento.event_id][1] is not None
            ]
            mortos = [p for p in planos if p.desfecho == Outcome.DEAD_LETTER] + [
                p for p in recusadas if disputa[p.evento.event_id][1] is None
            ]
            motivos = {p.evento.event_id: p.motivo or disputa[p.evento.event_id][0] for p in mortos}
            em_disputa = {p.evento.event_id for p in conflitos}
            if conflitos:
                conn.execute(
                    db.q("conflicts_insert"),
                    {
                        "event_ids": [p.event_id_texto for p in conflitos],
                        "demanda_ids": [p.demanda_id_texto for p in conflitos],
                        "seqs": [p.evento.sequence_number for p in conflitos],
                    },
                )
            estacionados = [p for p in planos if p.desfecho == Outcome.GEOCODIFICACAO_PENDENTE]
            if estacionados:
                conn.execute(
                    db.q("geocoder_park"),
                    {
                        "event_ids": [p.event_id_texto for p in estacionados],
                        "demanda_ids": [p.demanda_id_texto for p in estacionados],
                        "seqs": [p.evento.sequence_number for p in estacionados],
                    },
                )
            _registrar_geocodificacoes(
                conn, [p for p in planos if p.desfecho == Outcome.ENDERECO_NAO_RESOLVIDO]
            )
            da_fila = [p.event_id_texto for p in planos if p.da_fila]
            if da_fila:
                conn.execute(db.q("geocoder_remove"), {"event_ids": da_fila})
            processados = [
                p
                for p in planos
                if p.evento.event_id not in motivos
                and p.evento.event_id not in em_disputa
                and p.demanda_id is not None
                and p.desfecho != Outcome.GEOCODIFICACAO_PENDENTE
            ]
            if processados:
                conn.execute(
                    db.q("eventos_processados_insert"),
                    {
                        "event_ids": [p.event_id_texto for p in processados],
                        "demanda_ids": [p.demanda_id_texto for p in processados],
                    },
                )
            for plano in mortos:
                _registrar_dead_letter(conn, plano.evento, motivos[plano.evento.event_id])
            if mover_cursor:
                _mover_cursor(conn, ultima)
            publicar = (Outcome.REPUBLICADA, Outcome.GEORREFERENCIADA)
            publicaveis = [
                p.saida for p in planos if p.desfecho in publicar and p.saida is not None
            ]
            if publicaveis:
                bus.publicar(conn, publicaveis, origem=ORIGEM)
            resolvidas = [
                p.evento.event_id for p in planos if p.evento.event_id in self.falhas_publicacao
            ]
            if resolvidas:
                dead_letters.resolver(conn, CONSUMIDOR, resolvidas)
        for plano in recusadas:
            motivo, titular = disputa[plano.evento.event_id]
            if titular is not None:
                em_conflito(plano, titular)
            else:
                morto(plano, motivo)
        self.falhas_publicacao.difference_update(resolvidas)
        return aceitos

    def _registrar_falha_publicacao(
        self, conn: db.Connection, planos: list[Plan], exc: errors.PublishError
    ) -> None:
        """Spec 3.4/T9: the events whose output could not be published get a dead letter
        (one per event and incident: a later failure counts one more try on it); the
        cursor stays, so the next pass publishes them again."""
        publicar = (Outcome.REPUBLICADA, Outcome.GEORREFERENCIADA)
        afetados = [p.evento for p in planos if p.desfecho in publicar and p.saida is not None]
        motivo = f"{_FALHA_PUBLICACAO}: {exc}"[:2000]
        try:
            with db.mapped_errors(), conn.transaction():
                for evento in afetados:
                    _registrar_dead_letter(conn, evento, motivo)
        except errors.D2Error as falha:
            # The database itself is gone: the retries' logs say so; the cursor holds.
            log.error(
                "Falha de publicação não registrada na DLQ",
                extra={"erro": str(falha).splitlines()[0] if str(falha) else ""},
            )
            return
        self.falhas_publicacao.update(e.event_id for e in afetados)

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
            _registrar_dead_letter(conn, evento, motivo[:2000])
            if mover_cursor:
                _mover_cursor(conn, bus.posicao(evento))
        log.error(
            "Evento enviado à DLQ",
            extra={
                "event_id": evento.event_id,
                "sequence_number": evento.sequence_number,
                "motivo": motivo,
            },
        )
        resultado = Result(ultima=bus.posicao(evento))
        resultado.contagem[str(Outcome.DEAD_LETTER)] += 1
        return resultado
