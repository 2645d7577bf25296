"""Citizen-drawn polygons (spec 8.5, layer 2): intake, consensus, moderation.

Consumes `lugar.cadastrado` events of tipo_lugar 'poligono_uc' from the event log with
the demand worker's guarantees: a cursor of its own in d2.consumer_offset, idempotency by
event_id (d2.territorio_submissoes), and each event in exactly one terminal state — a
submission row (nova, confirmacao, alternativa, retida or rejeitada, with the reason) or
a dead letter — written in one transaction with the events it publishes and the cursor.

The decisions are SQL over PostGIS (sql/functions/territorio_*.sql), in three steps given
only the event's id: count the attempt (its own short transaction, so a drawing whose
evaluation never returns is dead-lettered after TENTATIVAS_MAX instead of evaluated
forever), evaluate (every geometry operation, in a statement that holds no transaction
id until its last row: no event-log fence held meanwhile), then submit and publish in
the cursor's transaction: `uc.poligono_adicionado` for a new UC, `uc.poligono_atualizado`
when the consensus moves a UC's canonical geometry, and `uc.moderacao_solicitada` every
N conflicting drawings of one place (D2_TERRITORIO_ALERTA_A_CADA). Runs on the worker's
geometry stage (d2/worker/geometry.py), never in the demand loop.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from d2 import config, db, errors
from d2.eventlog import bus, consumer, registry, wire

log = logging.getLogger(__name__)

TIPO_ENTRADA = "lugar.cadastrado"
TIPO_LUGAR = "poligono_uc"
CONSUMER = "D-2/territorio"
CURSOR = consumer.Cursor(TIPO_ENTRADA, CONSUMER)
ORIGEM = "D-2"
FONTE = "comunitario"
DECISOES = ("nova", "confirmacao", "alternativa", "retida", "rejeitada")
# Evaluations begun of one drawing before it goes to the dead letters: one that never
# returned (a killed worker's backend still in GEOS, a crash) is not begun forever.
TENTATIVAS_MAX = 3


@dataclass
class Result:
    """What one drain did, by terminal state."""

    por_decisao: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DECISOES, 0))
    ignorados: int = 0
    ja_registrados: int = 0
    dead_letters: int = 0
    alertas: int = 0
    canonicas_mudadas: int = 0

    def somar(self, outro: Result) -> None:
        """Add another drain's counts to these."""
        for decisao, n in outro.por_decisao.items():
            self.por_decisao[decisao] += n
        self.ignorados += outro.ignorados
        self.ja_registrados += outro.ja_registrados
        self.dead_letters += outro.dead_letters
        self.alertas += outro.alertas
        self.canonicas_mudadas += outro.canonicas_mudadas

    def as_json(self) -> dict[str, int]:
        return {
            **self.por_decisao,
            "ignorados": self.ignorados,
            "ja_registrados": self.ja_registrados,
            "dead_letters": self.dead_letters,
            "alertas": self.alertas,
            "canonicas_mudadas": self.canonicas_mudadas,
        }

    @property
    def eventos(self) -> int:
        return (
            sum(self.por_decisao.values())
            + self.ignorados
            + self.ja_registrados
            + self.dead_letters
        )


def cursor(conn: db.Connection) -> bus.Position:
    """The consumer's cursor, created at the start of the log the first time: drawings
    made before D-2 ran (L-2 only logs them, spec 8.5) are taken too."""
    return CURSOR.position(conn)


def drenar(conn: db.Connection, settings: config.Settings, *, batch: int = 100) -> Result:
    """Handle every pending lugar.cadastrado event, one transaction each; returns counts.

    conn must be in autocommit mode. A transient database error propagates (the caller
    retries later from the same cursor); any other failure of one event sends it to the
    dead letters and the drain goes on.
    """
    resultado = Result()
    apos = cursor(conn)
    while True:
        eventos = bus.ler_desde(
            conn, TIPO_ENTRADA, apos, batch, max_payload_bytes=settings.max_payload_bytes
        )
        if not eventos:
            return resultado
        for evento in eventos:
            _um_evento(conn, evento, settings, resultado)
            apos = bus.position(evento)


def _um_evento(
    conn: db.Connection, evento: bus.Evento, settings: config.Settings, resultado: Result
) -> None:
    try:
        drawing = _drawing(evento)
        if drawing:
            _avaliar(conn, evento)
    except (errors.InvalidEvent, _Abandonado) as exc:
        if CURSOR.dead_letter(conn, evento, str(exc)[:2000]):
            resultado.dead_letters += 1
        return
    fim, _ = CURSOR.tratar(
        conn, evento, lambda: _decidir(conn, evento, settings, resultado, drawing)
    )
    if fim == "dead_letter":
        resultado.dead_letters += 1


class _Abandonado(errors.D2Error):
    """The drawing's evaluation failed or was begun too many times."""


def _drawing(evento: bus.Evento) -> bool:
    """True for a drawing to evaluate; False for another kind of place, which passes
    without its payload being validated (its fields may be anyone's personal data, which
    a validation error would carry into the dead letters); InvalidEvent otherwise."""
    payload = evento.payload
    if isinstance(payload, wire.UnreadablePayload):
        raise errors.InvalidEvent(payload.motivo)
    # The kind first: a place of another kind (a citizen's home, a shop) is none of D-2's
    # business, whatever else it holds, so it is never validated, dead-lettered or logged.
    tipo_lugar = payload.get("tipo_lugar") if isinstance(payload, dict) else None
    if isinstance(tipo_lugar, str) and tipo_lugar != TIPO_LUGAR:
        return False
    registry.validar(TIPO_ENTRADA, payload, evento.versao_schema)
    return True


def _avaliar(conn: db.Connection, evento: bus.Evento) -> None:
    """Count the attempt, then evaluate: two autocommit statements, outside the cursor's
    transaction. A failure that is not transient ends the drawing as a dead letter."""
    try:
        with db.mapped_errors():
            if conn.execute(db.q("territorio_submitted"), {"event_id": evento.event_id}).fetchone():
                return  # another consumer submitted it: the cursor's transaction says so
            row = conn.execute(db.q("territorio_tentar"), {"event_id": evento.event_id}).fetchone()
            tentativas = int(row["tentativas"]) if row and row["tentativas"] else 0
            if tentativas > TENTATIVAS_MAX:
                raise _Abandonado(
                    f"avaliação abandonada após {TENTATIVAS_MAX} tentativas sem terminar"
                )
            conn.execute(db.q("territorio_avaliar"), {"event_id": evento.event_id})
    except errors.StatementTimeout as exc:
        raise _Abandonado(f"avaliação interrompida pelo limite de tempo: {exc}") from exc
    except (errors.InvalidInput, errors.PermissionDenied) as exc:
        raise _Abandonado(str(exc)) from exc


def _decidir(
    conn: db.Connection,
    evento: bus.Evento,
    settings: config.Settings,
    resultado: Result,
    drawing: bool,
) -> None:
    if not drawing:
        resultado.ignorados += 1
        return
    row = conn.execute(
        db.q("territorio_submeter"),
        {"event_id": evento.event_id, "alerta_a_cada": settings.territorio_alerta_a_cada},
    ).fetchone()
    assert row is not None  # the function always answers one row
    if row["ja_registrada"]:
        resultado.ja_registrados += 1
        return
    decisao = row["decisao"]
    resultado.por_decisao[decisao] += 1
    extra = {
        "event_id": str(evento.event_id),
        "correlacao_id": str(evento.correlacao_id) if evento.correlacao_id else None,
        "submissao_id": str(row["submissao_id"]),
        "decisao": decisao,
        "unidade_civica_id": str(row["unidade_civica_id"]) if row["unidade_civica_id"] else None,
    }
    if decisao in ("rejeitada", "retida"):
        log.warning("Polígono comunitário %s: %s", decisao, row["motivo"], extra=extra)
        return
    if row["motivo"]:  # a version held for what it would take: it waits for a moderator
        log.warning("Polígono comunitário %s retida: %s", decisao, row["motivo"], extra=extra)
    else:
        log.info("Polígono comunitário: %s", decisao, extra=extra)
    if decisao == "nova":
        _publicar_uc(conn, evento, "uc.poligono_adicionado", row["unidade_civica_id"], {})
    elif row["canonica_mudou"]:
        resultado.canonicas_mudadas += 1
        _publicar_uc(
            conn, evento, "uc.poligono_atualizado", row["unidade_civica_id"], {"motivo": "consenso"}
        )
    if row["alerta"]:
        resultado.alertas += 1
        pendentes = conn.execute(
            db.q("territorio_pending_of_uc"), {"uc": row["unidade_civica_id"]}
        ).fetchone()
        alerta = bus.preparar(
            "uc.moderacao_solicitada",
            {
                "unidade_civica_id": str(row["unidade_civica_id"]),
                "municipio_uc_id": str(row["municipio_uc_id"]),
                "nivel": row["nivel"],
                "submissoes_conflitantes": row["conflitos"],
                "pendentes": pendentes["pendentes"] if pendentes else 0,
            },
            evento.correlacao_id,
        )
        bus.publicar(conn, [alerta], origem=ORIGEM)
        log.warning("Alerta de moderação: desenhos conflitantes", extra=extra)


def _publicar_uc(
    conn: db.Connection,
    evento: bus.Evento | None,
    tipo: str,
    uc: uuid.UUID,
    extra: dict[str, Any],
) -> None:
    """Publish a UC's current community row (id, level, parent, canonical geometry)."""
    row = conn.execute(db.q("territorio_uc_for_event"), {"uc": uc}).fetchone()
    if row is None:
        raise errors.D2Error(f"community UC {uc} vanished before it was published")
    payload = {
        "unidade_civica_id": str(row["unidade_civica_id"]),
        "uc_polygon_id": str(row["uc_polygon_id"]),
        "nivel": row["nivel"],
        "nome": row["nome"],
        "parent_uc_id": str(row["parent_uc_id"]) if row["parent_uc_id"] else None,
        "fonte": FONTE,
        "geometria": row["geometria"],
        "submissao_id": str(row["submissao_id"]),
        **extra,
    }
    if tipo == "uc.poligono_adicionado" and row["lugar_id"] is not None:
        payload["lugar_id"] = str(row["lugar_id"])
    bus.publicar(
        conn, [bus.preparar(tipo, payload, evento.correlacao_id if evento else None)], origem=ORIGEM
    )


def listar(
    conn: db.Connection, *, pendentes: bool = True, limite: int = 100
) -> list[dict[str, Any]]:
    """Submissions, newest first; only the alternatives awaiting a moderator by default."""
    with db.mapped_errors():
        return conn.execute(
            db.q("territorio_list"), {"pendentes": pendentes, "limite": limite}
        ).fetchall()


def mostrar(conn: db.Connection, drawing_id: uuid.UUID) -> dict[str, Any]:
    """One submission with its geometry (GeoJSON) and the UC's other versions."""
    with db.mapped_errors():
        row = conn.execute(db.q("territorio_show"), {"id": drawing_id}).fetchone()
        if row is None:
            raise errors.InvalidInput(f"submission {drawing_id} not found")
        versoes = conn.execute(
            db.q("territorio_versions"), {"uc": row["unidade_civica_id"]}
        ).fetchall()
    return {**row, "versoes": versoes}


def moderar(conn: db.Connection, drawing_id: uuid.UUID, acao: str, por: str) -> dict[str, Any]:
    """'aceitar' or 'rejeitar' one submission, publishing what changed, in one transaction.

    Raises errors.InvalidInput with the database's one-line reason when the decision is
    not allowed (unknown submission, a drawing refused by validation, accepting a version
    of an IBGE or OSM UC)."""
    with db.mapped_errors(), conn.transaction():
        row = conn.execute(
            db.q("territorio_moderar"), {"id": drawing_id, "acao": acao, "por": por}
        ).fetchone()
        assert row is not None
        if row["efeito"] == "criada":  # a held drawing, accepted: a new community UC
            _publicar_uc(conn, None, "uc.poligono_adicionado", row["unidade_civica_id"], {})
        elif row["efeito"] == "canonica":
            _publicar_uc(
                conn,
                None,
                "uc.poligono_atualizado",
                row["unidade_civica_id"],
                {"motivo": "moderacao"},
            )
        elif row["efeito"] == "removida":
            uc = conn.execute(
                db.q("territorio_uc_removed"), {"uc": row["unidade_civica_id"]}
            ).fetchone()
            assert uc is not None
            removido = bus.preparar(
                "uc.poligono_removido",
                {
                    "unidade_civica_id": str(row["unidade_civica_id"]),
                    "uc_polygon_id": str(uc["uc_polygon_id"]),
                    "nivel": uc["nivel"],
                    "motivo": "moderacao",
                },
            )
            bus.publicar(conn, [removido], origem=ORIGEM)
    log.info(
        "Moderação: %s",
        acao,
        extra={"submissao_id": str(drawing_id), "efeito": row["efeito"], "moderador": por},
    )
    return dict(row)


def health(conn: db.Connection, limite: int = 50) -> list[dict[str, Any]]:
    """Community UCs ranked by how strongly use says their geometry is wrong."""
    with db.mapped_errors():
        return conn.execute(db.q("territorio_health"), {"limite": limite}).fetchall()
