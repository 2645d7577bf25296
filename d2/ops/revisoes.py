"""The manual review queue (spec 2.4, `d2 revisoes list|reprocessar`): points that fell
inside no polygon, listed with a hint, and resolved again when polygons arrive."""

from __future__ import annotations

import functools
import json
import uuid
from collections import Counter
from typing import Any

from d2 import config, db
from d2.eventlog import bus
from d2.handler import handler, outputs
from d2.ops import status
from d2.territorio import resolver

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
            f"{r['uc_proxima_km']} km"
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
    """Resolve the review queue against today's polygons, chunk by chunk.

    Each chunk is one transaction: lock the rows (SKIP LOCKED), resolve them set-based,
    store the resolutions as the handler would (gps/alta, correlacao_id of the original
    event), publish demanda.georreferenciada, delete them from the queue. What stays
    unresolved stays queued. conn must be in autocommit mode.
    """
    db.exigir_autocommit(conn)
    relatorio: dict[str, Any] = {"examinadas": 0, "resolvidas": 0, "continuam_pendentes": 0}
    relatorio["por_nivel"] = Counter[str]()
    apos = NIL
    while True:
        parcial = bus.com_retry(
            functools.partial(_batch, conn, apos, batch),
            descricao="reprocessar revisões",
        )
        if parcial is None:
            break
        apos, examinadas, gravadas = parcial
        relatorio["examinadas"] += examinadas
        relatorio["resolvidas"] += len(gravadas)
        relatorio["continuam_pendentes"] += examinadas - len(gravadas)
        relatorio["por_nivel"].update(str(g["nivel_minimo_resolvido"]) for g in gravadas)
    relatorio["por_nivel"] = dict(sorted(relatorio["por_nivel"].items()))
    return relatorio


def _batch(
    conn: db.Connection, apos: uuid.UUID, batch: int
) -> tuple[uuid.UUID, int, list[dict[str, Any]]] | None:
    with db.mapped_errors(), conn.transaction():
        pendentes = conn.execute(db.q("revisoes_lock"), {"apos": apos, "lote": batch}).fetchall()
        if not pendentes:
            return None
        gravadas = resolver_pendentes(conn, pendentes)
    return pendentes[-1]["demanda_id"], len(pendentes), gravadas


def resolver_pendentes(
    conn: db.Connection, pendentes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Resolve locked reviews; store, publish and dequeue those a polygon now covers."""
    pontos = [(p["coordenadas_lat"], p["coordenadas_lng"]) for p in pendentes]
    linhas = [
        {
            "demanda_id": str(p["demanda_id"]),
            "event_id": str(p["event_id"]),
            "lat": p["coordenadas_lat"],
            "lng": p["coordenadas_lng"],
        }
        | achado.as_json()
        for p, achado in zip(pendentes, resolver.resolver_muitos(conn, pontos), strict=True)
        if achado is not None
    ]
    if not linhas:
        return []
    gravadas = conn.execute(db.q("revisoes_store"), {"rows": json.dumps(linhas)}).fetchall()
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
