"""Steps 5-7 of the handler (spec 3.3) for a decided batch: each resolution stored in
its own commit (spec 3.5); then, in ONE transaction (docs/design.md, decision 5), the
reviews, the conflicts, the address demands parked for the geocoder, the processed marks,
the dead letters, the cursor and the publication of demanda.georreferenciada. A
demanda_id another event holds is told apart here: a producer's retry (a dead letter) or
a conflict (an operator decides: never first-wins). When the publication fails after its
retries, each event it concerns gets a dead letter (spec 3.4/T9), resolved when a later
pass publishes it.

d2.handler.handler decides the batch (steps 1-4) and calls this; its log lines are the
handler's (logger d2.handler).
"""

from __future__ import annotations

import logging
import uuid

from psycopg.rows import tuple_row

from d2 import config, db, errors
from d2.eventlog import bus, consumer, dead_letters, wire
from d2.handler import outputs
from d2.handler.classification import Outcome, Plan, conteudo, em_conflito, morto

log = logging.getLogger("d2.handler")

# How a publish failure's dead letter starts (found again at boot by dlq_publish_failures).
_FALHA_PUBLICACAO = "publish failed"


def _registrar_geocodificacoes(conn: db.Connection, planos: list[Plan]) -> None:
    """The geocoding stage's rows (d2.geocodificacoes), with the terminal state."""
    linhas = [p.geocodificacao for p in planos if p.geocodificacao is not None]
    if linhas:
        conn.execute(db.q("geocoder_record"), {"rows": wire.json_texto(linhas)})


def _registrar_proximidade(conn: db.Connection, planos: list[Plan], limite_m: float) -> None:
    """The near rule's answers among the stored resolutions: their step and distance in
    d2.revisoes_tratadas, in the resolutions' commit."""
    linhas = [
        {
            "event_id": p.event_id_texto,
            "demanda_id": p.demanda_id_texto,
            "unidade_civica_id": p.resolucao.unidade_civica_id,
            "distancia_m": p.resolucao.distancia_m,
            "lat": p.lat,
            "lng": p.lng,
        }
        for p in planos
        if p.resolucao is not None and p.resolucao.distancia_m is not None
    ]
    if linhas:
        conn.execute(
            db.q("revisoes_near_record"),
            {"rows": wire.json_texto(linhas), "limite": limite_m},
        )


def _enfileirar_revisoes(conn: db.Connection, revisao: list[Plan]) -> set[uuid.UUID]:
    """Step 4's review queue; returns the events whose review row is theirs (inserted now,
    or already there from an earlier pass)."""
    if not revisao:
        return set()
    linhas = [
        {"demanda_id": p.demanda_id_texto, "event_id": p.event_id_texto, "lat": p.lat, "lng": p.lng}
        for p in revisao
    ]
    return {
        row["event_id"]
        for row in conn.execute(db.q("revisoes_insert"), {"rows": wire.json_texto(linhas)})
    }


def _conflitos_e_mortos(
    planos: list[Plan],
    recusadas: list[Plan],
    disputa: dict[uuid.UUID, tuple[str, uuid.UUID | None]],
) -> tuple[list[Plan], list[Plan], dict[uuid.UUID, str]]:
    """The batch's conflicts (decided before, or a refused review whose demanda another
    event holds with other content) and its dead letters with their reasons (decided
    before, or a refused review that repeats its holder)."""
    conflitos = [p for p in planos if p.outcome == Outcome.CONFLITO] + [
        p for p in recusadas if disputa[p.evento.event_id][1] is not None
    ]
    mortos = [p for p in planos if p.outcome == Outcome.DEAD_LETTER] + [
        p for p in recusadas if disputa[p.evento.event_id][1] is None
    ]
    motivos = {p.evento.event_id: p.motivo or disputa[p.evento.event_id][0] for p in mortos}
    return conflitos, mortos, motivos


def _registrar_eventos(conn: db.Connection, consulta: str, planos: list[Plan]) -> None:
    """Events recorded by (event_id, demanda_id, sequence_number) with one named query:
    the conflicts (conflicts_insert: events whose demanda another event holds with other
    content, their terminal state) and the address-only demands parked for the geocoding
    stage (geocoder_park)."""
    if planos:
        conn.execute(
            db.q(consulta),
            {
                "event_ids": [p.event_id_texto for p in planos],
                "demanda_ids": [p.demanda_id_texto for p in planos],
                "seqs": [p.evento.sequence_number for p in planos],
            },
        )


def _sair_da_fila(conn: db.Connection, planos: list[Plan]) -> None:
    """Parked demands concluded now leave the geocoding stage's queue."""
    da_fila = [p.event_id_texto for p in planos if p.da_fila]
    if da_fila:
        conn.execute(db.q("geocoder_remove"), {"event_ids": da_fila})


def _marcar_processados(conn: db.Connection, planos: list[Plan]) -> None:
    """Step 7's processed marks, for the plans that reached a terminal path (neither a
    dead letter nor a conflict: the caller leaves those out)."""
    processados = [
        p
        for p in planos
        if p.demanda_id is not None and p.outcome != Outcome.GEOCODIFICACAO_PENDENTE
    ]
    if processados:
        conn.execute(
            db.q("eventos_processados_insert"),
            {
                "event_ids": [p.event_id_texto for p in processados],
                "demanda_ids": [p.demanda_id_texto for p in processados],
            },
        )


def _publicar(conn: db.Connection, planos: list[Plan], origem: str) -> None:
    """Step 6: demanda.georreferenciada of the new and the republished resolutions."""
    publicar = (Outcome.REPUBLICADA, Outcome.GEORREFERENCIADA)
    publicaveis = [p.saida for p in planos if p.outcome in publicar and p.saida is not None]
    if publicaveis:
        bus.publicar(conn, publicaveis, origem=origem)


class Conclusion:
    """Steps 5-7 for the batches of one Handler, and the events whose publication failed.
    The handler imports this module, so who it is comes as arguments: the consumer's
    cursor (which moves, and under whose name the dead letters are), the origin it
    publishes as."""

    def __init__(self, settings: config.Settings, *, cursor: consumer.Cursor, origem: str) -> None:
        self.settings = settings
        self.cursor = cursor
        self.consumer = cursor.consumer
        self.origem = origem
        # The near rule's distance, recorded with each of its answers.
        self.limite_m = settings.revisao_distancia_m
        self.falhas_publicacao: set[uuid.UUID] = set()
        """Events whose publication failed after its retries (spec 3.4/T9), each with a
        pending dead letter that the publication, when it succeeds, marks resolved."""

    def iniciar(self, conn: db.Connection) -> None:
        """At boot, in the caller's transaction: the publication failures a previous run
        left (their pending dead letters)."""
        self.falhas_publicacao = dead_letters.falhas_de_publicacao(
            conn, self.consumer, _FALHA_PUBLICACAO
        )

    def gravar_resolucoes(self, conn: db.Connection, planos: list[Plan]) -> None:
        """Step 5 in its own commit (spec 3.5): the resolution survives a publish failure."""
        novos = [p for p in planos if p.outcome == Outcome.GEORREFERENCIADA]
        if not novos:
            return
        colunas = outputs.colunas_resolucoes([p.gravada for p in novos if p.gravada is not None])
        with db.mapped_errors(), conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
            gravados = {row[0] for row in cur.execute(db.q("resolucoes_insert"), colunas)}
            _registrar_geocodificacoes(conn, [p for p in novos if p.event_id_texto in gravados])
            _registrar_proximidade(
                conn, [p for p in novos if p.event_id_texto in gravados], self.limite_m
            )
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

    def fechar(
        self, conn: db.Connection, planos: list[Plan], ultima: bus.Position, mover_cursor: bool
    ) -> set[uuid.UUID]:
        """Steps 6-7 (and the discard/review paths) in ONE transaction; returns the events
        that entered the review queue now."""
        with db.mapped_errors(), conn.transaction():
            revisao = [p for p in planos if p.outcome == Outcome.REVISAO_PENDENTE]
            aceitos = _enfileirar_revisoes(conn, revisao)
            # A review refused: another event holds the demanda (a retry, or a conflict).
            recusadas = [p for p in revisao if p.evento.event_id not in aceitos]
            disputa = dict(
                zip(
                    (p.evento.event_id for p in recusadas),
                    self._disputar(conn, recusadas),
                    strict=True,
                )
            )
            conflitos, mortos, motivos = _conflitos_e_mortos(planos, recusadas, disputa)
            _registrar_eventos(conn, "conflicts_insert", conflitos)
            _registrar_eventos(
                conn,
                "geocoder_park",
                [p for p in planos if p.outcome == Outcome.GEOCODIFICACAO_PENDENTE],
            )
            _registrar_geocodificacoes(
                conn, [p for p in planos if p.outcome == Outcome.ENDERECO_NAO_RESOLVIDO]
            )
            _sair_da_fila(conn, planos)
            fora = set(motivos) | {p.evento.event_id for p in conflitos}
            _marcar_processados(conn, [p for p in planos if p.evento.event_id not in fora])
            for plano in mortos:
                self.cursor.registrar_dead_letter(
                    conn, plano.evento, motivos[plano.evento.event_id]
                )
            if mover_cursor:
                self.cursor.avancar(conn, ultima)
            _publicar(conn, planos, self.origem)
            resolvidas = self._resolver_falhas_publicacao(conn, planos)
        for plano in recusadas:
            motivo, titular = disputa[plano.evento.event_id]
            if titular is not None:
                em_conflito(plano, titular)
            else:
                morto(plano, motivo)
        self.falhas_publicacao.difference_update(resolvidas)
        return aceitos

    def _resolver_falhas_publicacao(
        self, conn: db.Connection, planos: list[Plan]
    ) -> list[uuid.UUID]:
        """The dead letters of earlier publication failures of these events, resolved in
        the transaction that publishes them now."""
        resolvidas = [
            p.evento.event_id for p in planos if p.evento.event_id in self.falhas_publicacao
        ]
        if resolvidas:
            dead_letters.resolver(conn, self.consumer, resolvidas)
        return resolvidas

    def registrar_falha_publicacao(
        self, conn: db.Connection, planos: list[Plan], exc: errors.PublishError
    ) -> None:
        """Spec 3.4/T9: the events whose output could not be published get a dead letter
        (one per event and incident: a later failure counts one more try on it); the
        cursor stays, so the next pass publishes them again."""
        publicar = (Outcome.REPUBLICADA, Outcome.GEORREFERENCIADA)
        afetados = [p.evento for p in planos if p.outcome in publicar and p.saida is not None]
        motivo = f"{_FALHA_PUBLICACAO}: {exc}"[:2000]
        try:
            with db.mapped_errors(), conn.transaction():
                for evento in afetados:
                    self.cursor.registrar_dead_letter(conn, evento, motivo)
        except errors.D2Error as falha:
            # The database itself is gone: the retries' logs say so; the cursor holds.
            log.error(
                "Falha de publicação não registrada na DLQ",
                extra={"erro": str(falha).splitlines()[0] if str(falha) else ""},
            )
            return
        self.falhas_publicacao.update(e.event_id for e in afetados)
