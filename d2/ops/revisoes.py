"""The review queue (spec 2.4): points that fell inside no polygon, listed with a hint
(`d2 revisoes list`), answered again by the polygons and the near rule of today
(`d2 revisoes reprocessar`, and the worker's follow-up), and closed by an operator: at a
unit they chose (`d2 revisoes atribuir`) or with no answer (`d2 revisoes descartar`),
through the SQL functions a psql user calls too (docs/design.md, decision 12)."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

from d2 import config, db, locks
from d2.eventlog import bus, registry
from d2.handler import handler, outputs
from d2.ops import status
from d2.territorio import resolver

log = logging.getLogger(__name__)

NIL = uuid.UUID(int=0)


def listar(conn: db.Connection, limite: int = 100) -> list[dict[str, Any]]:
    """The pending reviews, oldest first, each with the nearest level ≤ 4 UC (a hint)."""
    with db.mapped_errors():
        return conn.execute(db.q("revisoes_list"), {"limite": limite}).fetchall()


def formatar(linhas: list[dict[str, Any]]) -> str:
    """`d2 revisoes list` for a person."""
    if not linhas:
        return "no pending reviews"
    saida = []
    for r in linhas:
        perto = (
            f"nearest {r['uc_proxima_nome']} ({status.nome_nivel(r['uc_proxima_nivel'])}) "
            f"{r['uc_proxima_km']} km, --uc {r['uc_proxima_id']}"
            if r["uc_proxima_nome"]
            else "no polygon nearby"
        )
        saida.append(
            f"{r['demanda_id']}  {r['coordenadas_lat']:.5f},{r['coordenadas_lng']:.5f}  "
            f"waiting {r['aguardando']}  {perto}"
        )
    return "\n".join(saida)


def reprocessar(
    conn: db.Connection, settings: config.Settings, *, batch: int = 500
) -> dict[str, Any]:
    """Answer the review queue by today's polygons and the near rule, chunk by chunk.

    Each chunk is one transaction: lock the rows (SKIP LOCKED), resolve them set-based,
    store the resolutions as the handler would (gps; alta, or media by the near rule;
    correlacao_id of the original event), publish demanda.georreferenciada, delete them
    from the queue. What stays unanswered stays queued. conn must be in autocommit mode.
    """
    db.exigir_autocommit(conn)
    regra = resolver.NearRule.de(settings)
    relatorio: dict[str, Any] = {"examinadas": 0, "resolvidas": 0, "continuam_pendentes": 0}
    relatorio |= {"por_proximidade": 0, "distancia_m": regra.limite_m}
    relatorio["por_nivel"] = Counter[str]()
    apos = NIL
    while True:
        parcial = bus.com_retry(
            functools.partial(_batch, conn, apos, batch, regra),
            descricao="reprocessar revisões",
        )
        if parcial is None:
            break
        apos, examinadas, gravadas = parcial
        relatorio["examinadas"] += examinadas
        relatorio["resolvidas"] += len(gravadas)
        relatorio["continuam_pendentes"] += examinadas - len(gravadas)
        relatorio["por_proximidade"] += sum(1 for g in gravadas if g["confianca_geo"] == "media")
        relatorio["por_nivel"].update(str(g["nivel_minimo_resolvido"]) for g in gravadas)
    relatorio["por_nivel"] = dict(sorted(relatorio["por_nivel"].items()))
    return relatorio


def _batch(
    conn: db.Connection, apos: uuid.UUID, batch: int, regra: resolver.NearRule
) -> tuple[uuid.UUID, int, list[dict[str, Any]]] | None:
    with db.mapped_errors(), conn.transaction():
        pendentes = conn.execute(db.q("revisoes_lock"), {"apos": apos, "lote": batch}).fetchall()
        if not pendentes:
            return None
        gravadas = resolver_pendentes(conn, pendentes, regra)
    return pendentes[-1]["demanda_id"], len(pendentes), gravadas


def resolver_pendentes(
    conn: db.Connection, pendentes: list[dict[str, Any]], regra: resolver.NearRule
) -> list[dict[str, Any]]:
    """Answer locked reviews by a polygon or the near rule (resolver.resolver_com_regra,
    as the handler does); store, record, publish and dequeue those answered."""
    pontos = [(p["coordenadas_lat"], p["coordenadas_lng"]) for p in pendentes]
    linhas = [
        {
            "demanda_id": str(p["demanda_id"]),
            "event_id": str(p["event_id"]),
            "lat": p["coordenadas_lat"],
            "lng": p["coordenadas_lng"],
            "revisao_desde": p["criado_em"].isoformat(),
            "distancia_m": achado.distancia_m,
            "confianca": "alta" if achado.distancia_m is None else handler.CONFIANCA_PROXIMIDADE,
        }
        | achado.as_json()
        for p, achado in zip(
            pendentes, resolver.resolver_com_regra(conn, pontos, regra), strict=True
        )
        if achado is not None
    ]
    if not linhas:
        return []
    gravadas = conn.execute(db.q("revisoes_store"), {"rows": json.dumps(linhas)}).fetchall()
    guardadas = {str(g["event_id"]) for g in gravadas}
    conn.execute(
        db.q("revisoes_near_record"),
        {
            "rows": json.dumps(
                [
                    linha
                    for linha in linhas
                    if linha["distancia_m"] is not None and linha["event_id"] in guardadas
                ]
            ),
            "limite": regra.limite_m,
        },
    )
    bus.publicar(
        conn,
        [
            bus.preparar(outputs.TIPO_SAIDA, outputs.payload_saida(g), g["correlacao_id"])
            for g in gravadas
        ],
        origem=handler.ORIGEM,
    )
    conn.execute(db.q("revisoes_delete"), {"ids": [linha["demanda_id"] for linha in linhas]})
    return gravadas


# --- closed by hand --------------------------------------------------------------------------


def atribuir(
    conn: db.Connection,
    settings: config.Settings,
    demanda_id: uuid.UUID,
    uc: uuid.UUID,
    *,
    por: str,
    motivo: str | None = None,
) -> dict[str, Any]:
    """Answer a review at the unit an operator chose, in ONE transaction with its
    publication (d2.revisao_atribuir): the resolution with the unit's chain, the record
    (who, when, why), the review gone, one demanda.georreferenciada, checked against the
    Registry before it commits. A second call publishes nothing and says so
    (situacao 'ja_atribuida'). An unknown demanda or unit, a demanda not in review or in
    conflict: errors.InvalidInput, nothing written. conn must be in autocommit mode."""
    with _transacao(conn, settings):
        feito = conn.execute(
            db.q("revisao_atribuir"),
            {"demanda_id": demanda_id, "uc": uc, "motivo": motivo, "por": por},
        ).fetchone()
        assert feito is not None
        if feito["situacao"] == "atribuida":
            # What the function published, to the Registry like every event D-2 publishes
            # (bus.preparar): a refusal rolls the whole answer back.
            registry.validar(outputs.TIPO_SAIDA, feito["payload"])
    resposta = {k: feito[k] for k in ("situacao", "nivel_minimo_resolvido", "distancia_m")}
    resposta |= {
        k: None if feito[k] is None else str(feito[k])
        for k in ("demanda_id", "event_id", "unidade_civica_id", "evento_publicado_id")
    }
    resposta["cadeia_ucs"] = [str(x) for x in feito["cadeia_ucs"] or []]
    resposta["uc_nome"] = _nome(conn, uc)
    if feito["situacao"] == "atribuida":
        log.info(
            "Revisão atribuída por um operador",
            extra={
                "demanda_id": resposta["demanda_id"],
                "event_id": resposta["event_id"],
                "correlacao_id": str(feito["correlacao_id"]),
                "unidade_civica_id": resposta["unidade_civica_id"],
                "tratado_por": por,
            },
        )
    return resposta


def descartar(
    conn: db.Connection,
    settings: config.Settings,
    demanda_id: uuid.UUID,
    *,
    motivo: str,
    por: str,
) -> dict[str, Any]:
    """Close a review with no answer (d2.revisao_descartar): recorded with who, when and
    why, the review gone, nothing published. A second call writes nothing and says so
    (situacao 'ja_descartada'). errors.InvalidInput as atribuir. conn must be in
    autocommit mode."""
    with _transacao(conn, settings):
        feito = conn.execute(
            db.q("revisao_descartar"), {"demanda_id": demanda_id, "motivo": motivo, "por": por}
        ).fetchone()
    assert feito is not None
    if feito["situacao"] == "descartada":
        log.info(
            "Revisão descartada por um operador",
            extra={
                "demanda_id": str(demanda_id),
                "event_id": str(feito["event_id"]),
                "tratado_por": por,
            },
        )
    return {
        "situacao": feito["situacao"],
        "demanda_id": str(feito["demanda_id"]),
        "event_id": str(feito["event_id"]),
        "tratado_em": feito["tratado_em"],
    }


@contextlib.contextmanager
def _transacao(conn: db.Connection, settings: config.Settings) -> Iterator[None]:
    """One transaction for an operator's call, its wait for the review's row lock (an
    operator, or the worker, holding it) bounded by D2_LOCK_TIMEOUT. conn must be in
    autocommit mode."""
    db.exigir_autocommit(conn)
    with (
        locks.limites(conn, lock_s=settings.lock_timeout_s),
        db.mapped_errors(),
        conn.transaction(),
    ):
        yield


def _nome(conn: db.Connection, uc: uuid.UUID) -> str | None:
    with db.mapped_errors():
        row = conn.execute(db.q("uc_names"), {"ids": [uc]}).fetchone()
    return row["nome"] if row else None


def formatar_atribuicao(r: dict[str, Any]) -> str:
    """What `d2 revisoes atribuir` did, for a person."""
    nivel = status.nome_nivel(r["nivel_minimo_resolvido"])
    onde = f"{r['uc_nome'] or r['unidade_civica_id']} ({nivel}"
    onde += f", {r['distancia_m']:.0f} m from its point)" if r["distancia_m"] is not None else ")"
    if r["situacao"] == "ja_atribuida":
        return f"demanda {r['demanda_id']} was already answered at {onde}; nothing published"
    return (
        f"demanda {r['demanda_id']} answered at {onde}; "
        f"published demanda.georreferenciada {r['evento_publicado_id']}"
    )


def formatar_descarte(r: dict[str, Any]) -> str:
    """What `d2 revisoes descartar` did, for a person."""
    if r["situacao"] == "ja_descartada":
        return f"demanda {r['demanda_id']} was already discarded; nothing changed"
    return f"demanda {r['demanda_id']} discarded: it leaves the review queue, nothing published"
