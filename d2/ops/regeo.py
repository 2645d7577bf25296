"""Answers follow the territory (spec 8.3): when polygons change, stored resolutions and
pending reviews are looked at again under today's mirror.

Three ways in, one way out:
- `acompanhar`: the follow-up the worker runs by itself. Every change of the mirror
  leaves its old and new geometry in d2.regeo_areas (a trigger on d2.mirror_uc, in the
  transaction that changes the mirror); the follow-up turns those areas into a queue of
  the stored points inside them (GIST indexes on the points), then works the queue in
  chunks. Only points inside a changed area are examined. Resumable: each chunk leaves
  the queue in the transaction that rewrites it.
- `regeorreferenciar`: the operator's full pass (`d2 regeorreferenciar`), by id pages,
  filtered by UC and date, with a dry run.
- `reprocessar_revisoes`: the whole review queue (`d2 revisoes reprocessar`).
Each rewrites a resolution whose answer changed (checked again under its row lock),
keeps the previous answer in d2.resolucoes_geo_historico and publishes a new
demanda.georreferenciada, chunk by chunk, one transaction each; a review that a polygon
now covers becomes a resolution, published, and leaves the queue.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections import Counter
from datetime import date
from typing import Any

from d2 import config, db
from d2.eventlog import bus
from d2.handler import handler, outputs
from d2.ops import revisoes, status
from d2.territorio import resolver

NIL = uuid.UUID(int=0)
# Past this many changed polygons at once (an import), one pass over every point costs
# less than one index probe per polygon.
AREAS_PARA_TUDO = 500

Changes = Counter[tuple[uuid.UUID, int, uuid.UUID, int]]


# --- the follow-up ---------------------------------------------------------------------------


def pendencias(conn: db.Connection) -> dict[str, Any]:
    """What the follow-up still has to do: changed areas, queued resolutions and reviews."""
    with db.mapped_errors():
        row = conn.execute(db.q("regeo_pending")).fetchone()
    assert row is not None
    return dict(row)


def por_acompanhar(conn: db.Connection) -> int:
    """How many changed areas, queued resolutions and reviews the follow-up has left."""
    p = pendencias(conn)
    return int(p["areas"]) + int(p["resolucoes"]) + int(p["revisoes"])


def acompanhar(
    conn: db.Connection,
    *,
    regra: resolver.NearRule,
    batch: int = 5000,
    prazo_s: float | None = None,
) -> dict[str, Any]:
    """Follow the mirror's changes: expand the pending areas into the queue, then work it.
    Reviews are answered as the handler answers a point (a polygon, else the near rule
    regra), so those within its reach of a changed area are queued too.

    With prazo_s, stops after the chunk that passes that many seconds (the worker gives
    it a slice between batches of demands); what is left stays queued for the next call.
    conn must be in autocommit mode.
    """
    db.exigir_autocommit(conn)
    inicio = time.monotonic()
    relatorio: dict[str, Any] = {"areas": 0, "examinadas": 0, "alteradas": 0}
    relatorio |= {"sem_poligono_hoje": 0, "revisoes_examinadas": 0, "revisoes_resolvidas": 0}
    with db.mapped_errors():
        areas = conn.execute(db.q("regeo_pending_areas")).fetchone()
    if areas and areas["areas"]:
        tudo = bool(areas["tudo"]) or areas["areas"] > AREAS_PARA_TUDO
        with db.mapped_errors(), conn.transaction():
            expandido = conn.execute(
                db.q("regeo_expand"),
                {"ate": areas["ate"], "tudo": tudo, "alcance_graus": regra.alcance_graus},
            ).fetchone()
        assert expandido is not None
        relatorio["areas"] = expandido["areas"]

    def esgotado() -> bool:
        return prazo_s is not None and time.monotonic() - inicio >= prazo_s

    changes: Changes = Counter()
    # Resolutions first, then reviews; at least one chunk per call, however short the slice.
    while (parcial := bus.com_retry(
        functools.partial(_fila_batch, conn, batch), descricao="acompanhar re-geo"
    )) is not None:  # fmt: skip
        examinadas, sem_poligono, aplicadas = parcial
        relatorio["examinadas"] += examinadas
        relatorio["sem_poligono_hoje"] += sem_poligono
        relatorio["alteradas"] += len(aplicadas)
        _contar(changes, aplicadas)
        if esgotado():
            break
    else:
        while not esgotado() and (revisoes := bus.com_retry(
            functools.partial(_fila_revisoes_batch, conn, batch, regra),
            descricao="acompanhar revisões",
        )) is not None:  # fmt: skip
            relatorio["revisoes_examinadas"] += revisoes[0]
            relatorio["revisoes_resolvidas"] += len(revisoes[1])
    relatorio["mudancas"] = _agrupar(conn, changes)
    return relatorio


def _fila_batch(conn: db.Connection, batch: int) -> tuple[int, int, list[dict[str, Any]]] | None:
    with db.mapped_errors(), conn.transaction():
        linhas = conn.execute(db.q("regeo_queue_batch"), {"lote": batch}).fetchall()
        if not linhas:
            return None
        diferentes = [r for r in linhas if r["id"] is not None]
        sem_poligono = sum(1 for r in diferentes if r["nova_uc"] is None)
        ids = [r["id"] for r in diferentes if r["nova_uc"] is not None]
        aplicadas = _aplicar(conn, ids) if ids else []
    return linhas[0]["examinadas"], sem_poligono, aplicadas


def _fila_revisoes_batch(
    conn: db.Connection, batch: int, regra: resolver.NearRule
) -> tuple[int, list[dict[str, Any]]] | None:
    with db.mapped_errors(), conn.transaction():
        ids = [
            r["demanda_id"]
            for r in conn.execute(db.q("regeo_queue_revisoes_batch"), {"lote": batch})
        ]
        if not ids:
            return None
        pendentes = conn.execute(db.q("revisoes_lock_ids"), {"ids": ids}).fetchall()
        gravadas = revisoes.resolver_pendentes(conn, pendentes, regra)
    return len(pendentes), gravadas


# --- the full pass ---------------------------------------------------------------------------


def regeorreferenciar(
    conn: db.Connection,
    settings: config.Settings,
    *,
    uc: uuid.UUID | None,
    desde: date | None,
    dry_run: bool,
    batch: int = 5000,
) -> dict[str, Any]:
    """Recompute stored resolutions (of `uc` — resolved there or with it in the chain —
    created on or after `desde`) under today's polygons; rewrite those whose answer
    changed, keep the previous answer in d2.resolucoes_geo_historico and publish a new
    demanda.georreferenciada for each, one transaction per page (keyset by id).

    Safe to interrupt and to run again: rows already rewritten no longer differ. A
    resolution that no polygon contains today is left as it is and counted.
    With dry_run nothing is written. conn must be in autocommit mode.
    """
    db.exigir_autocommit(conn)
    changes: Changes = Counter()
    relatorio: dict[str, Any] = {"dry_run": dry_run, "examinadas": 0, "alteradas": 0}
    relatorio |= {"sem_poligono_hoje": 0, "publicadas": 0, "lotes": 0}
    apos = NIL
    while True:
        with db.mapped_errors():
            pagina = conn.execute(
                db.q("regeo_page"), {"apos": apos, "uc": uc, "desde": desde, "lote": batch}
            ).fetchall()
        if not pagina:
            break
        apos = pagina[0]["ultimo"]
        relatorio["lotes"] += 1
        relatorio["examinadas"] += pagina[0]["examinadas"]
        diferentes = [p for p in pagina if p["id"] is not None]
        relatorio["sem_poligono_hoje"] += sum(1 for p in diferentes if p["nova_uc"] is None)
        diferentes = [p for p in diferentes if p["nova_uc"] is not None]
        if not diferentes:
            continue
        if dry_run:
            changes.update(
                (p["unidade_civica_id"], p["nivel_minimo_resolvido"], p["nova_uc"], p["novo_nivel"])
                for p in diferentes
            )
            relatorio["alteradas"] += len(diferentes)
            continue
        ids = [p["id"] for p in diferentes]
        aplicadas = bus.com_retry(
            functools.partial(_aplicar_sozinho, conn, ids), descricao="regeorreferenciar"
        )
        _contar(changes, aplicadas)
        relatorio["alteradas"] += len(aplicadas)
        relatorio["publicadas"] += len(aplicadas)
    relatorio["mudancas"] = _agrupar(conn, changes)
    return relatorio


def _contar(changes: Changes, aplicadas: list[dict[str, Any]]) -> None:
    changes.update(
        (a["uc_anterior"], a["nivel_anterior"], a["unidade_civica_id"], a["nivel_minimo_resolvido"])
        for a in aplicadas
    )


def _aplicar_sozinho(conn: db.Connection, ids: list[uuid.UUID]) -> list[dict[str, Any]]:
    with db.mapped_errors(), conn.transaction():
        return _aplicar(conn, ids)


def _aplicar(conn: db.Connection, ids: list[uuid.UUID]) -> list[dict[str, Any]]:
    """Rewrite, record and publish, in the caller's transaction, the given resolutions
    whose answer still differs under their row lock."""
    aplicadas = conn.execute(db.q("regeo_apply"), {"ids": ids}).fetchall()
    if not aplicadas:
        return []
    eventos = bus.publicar(
        conn,
        [
            bus.preparar(outputs.TIPO_SAIDA, outputs.payload_saida(a), a["correlacao_id"])
            for a in aplicadas
        ],
        origem=handler.ORIGEM,
    )
    historico = [
        {
            "resolucao_id": str(a["id"]),
            "demanda_id": str(a["demanda_id"]),
            "uc_anterior": str(a["uc_anterior"]),
            "nivel_anterior": a["nivel_anterior"],
            "cadeia_anterior": [str(x) for x in a["cadeia_anterior"] or []],
            "uc_nova": str(a["unidade_civica_id"]),
            "nivel_novo": a["nivel_minimo_resolvido"],
            "cadeia_nova": [str(x) for x in a["cadeia_ucs"] or []],
            "evento_publicado_id": str(evento),
        }
        for a, evento in zip(aplicadas, eventos, strict=True)
    ]
    conn.execute(db.q("regeo_history"), {"rows": json.dumps(historico)})
    return aplicadas


def _agrupar(conn: db.Connection, changes: Changes) -> list[dict[str, Any]]:
    ids = sorted({k[0] for k in changes} | {k[2] for k in changes})
    nomes: dict[uuid.UUID, str] = {}
    if ids:
        with db.mapped_errors():
            for row in conn.execute(db.q("uc_names"), {"ids": ids}):
                nomes[row["unidade_civica_id"]] = row["nome"]
    return [
        {
            "de": {"unidade_civica_id": str(de), "nome": nomes.get(de), "nivel": nivel_de},
            "para": {"unidade_civica_id": str(para), "nome": nomes.get(para), "nivel": nivel_para},
            "quantidade": quantidade,
        }
        for (de, nivel_de, para, nivel_para), quantidade in changes.most_common()
    ]


def formatar_regeo(relatorio: dict[str, Any]) -> str:
    """The re-georeferencing report for a person: totals, then old UC → new UC."""
    verbo = "would change" if relatorio["dry_run"] else "changed"
    linhas = [
        f"examined {relatorio['examinadas']} resolutions; {verbo} {relatorio['alteradas']}; "
        f"{relatorio['sem_poligono_hoje']} inside no polygon today (kept)"
        + ("" if relatorio["dry_run"] else f"; published {relatorio['publicadas']} events")
    ]
    for m in relatorio["mudancas"]:
        de, para = m["de"], m["para"]
        linhas.append(
            f"{m['quantidade']:>8}  {de['nome'] or de['unidade_civica_id']} "
            f"({status.nome_nivel(de['nivel'])}) → {para['nome'] or para['unidade_civica_id']} "
            f"({status.nome_nivel(para['nivel'])})"
        )
    return "\n".join(linhas)


# --- the review queue ------------------------------------------------------------------------
