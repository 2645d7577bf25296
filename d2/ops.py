"""Operator tasks over the service: status, dead-letter retry, the review queue and
re-georeferencing when polygons change.

Everything here is safe to run while the worker runs: rows are claimed with row locks
(the review queue with SKIP LOCKED, resolutions with FOR UPDATE and a second look at
the answer under the lock), and each chunk's writes and its demanda.georreferenciada
events commit together, so an interrupted run resumes by running it again.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections import Counter
from datetime import date, datetime
from typing import Any

from d2 import bus, config, db, errors, geo, service

NIL = uuid.UUID(int=0)
NOMES_NIVEL = {1: "logradouro", 2: "bairro", 3: "distrito", 4: "município", 5: "UF"}
NOMES_NIVEL |= {6: "região", 7: "país"}


def nome_nivel(nivel: int | None) -> str:
    return NOMES_NIVEL.get(nivel or 0, f"nível {nivel}")


# --- dead letters ----------------------------------------------------------------------------


def reprocessar_dead_letters(
    conn: db.Connection, settings: config.Settings, event_ids: list[uuid.UUID] | None
) -> dict[str, Any]:
    """Run dead-lettered events through the handler again, one at a time.

    The cursor is not moved (these events are behind it). An event that now ends in a
    terminal state is marked 'reprocessado'; one that fails again stays 'pendente' with
    one more attempt counted.
    """
    if event_ids is None:
        pendentes = bus.listar_dead_letters(
            conn, consumidor=service.CONSUMIDOR, status="pendente", limite=1_000_000
        )
        event_ids = [row["event_id"] for row in pendentes]
    eventos = {e.event_id: e for e in bus.ler_eventos(conn, event_ids)}
    servico = service.Servico(settings)
    report: dict[str, Any] = {"pedidos": len(event_ids), "reprocessados": 0, "falharam": 0}
    report["ausentes_do_log"] = [str(e) for e in event_ids if e not in eventos]
    for event_id in event_ids:
        evento = eventos.get(event_id)
        if evento is None:
            continue
        resultado = servico.processar(conn, [evento], mover_cursor=False)
        if resultado.contagem[str(service.Desfecho.DEAD_LETTER)]:
            report["falharam"] += 1
        else:
            with conn.transaction():
                bus.marcar_dead_letter(conn, event_id, "reprocessado", service.CONSUMIDOR)
            report["reprocessados"] += 1
    return report


# --- status ----------------------------------------------------------------------------------


def status(conn: db.Connection) -> dict[str, Any]:
    """Everything `d2 status` shows, as plain JSON-able values (timestamps as datetimes)."""
    with db.mapped_errors():
        cursor = conn.execute(db.q("ops_status_cursor"), {"tipo": service.TIPO_ENTRADA}).fetchone()
        resolucoes = conn.execute(db.q("ops_status_resolucoes")).fetchall()
        descartes = conn.execute(db.q("ops_status_descartes")).fetchall()
        geral = conn.execute(
            db.q("ops_status_geral"),
            {
                "consumidor": service.CONSUMIDOR,
                "tipo_saida": service.TIPO_SAIDA,
                "origem": service.ORIGEM,
            },
        ).fetchone()
        dlq = conn.execute(
            db.q("ops_status_dead_letters"), {"consumidor": service.CONSUMIDOR}
        ).fetchall()
        ucs = conn.execute(db.q("ops_status_ucs")).fetchall()
        enderecos = conn.execute(db.q("geocoder_resumo")).fetchone()
    assert geral is not None
    por_nivel = {str(r["nivel"]): int(r["quantidade"]) for r in resolucoes}
    motivos = {r["motivo"]: int(r["quantidade"]) for r in descartes}
    dead = {r["status"]: int(r["quantidade"]) for r in dlq}
    return {
        "cursor": {
            "tipo_evento": service.TIPO_ENTRADA,
            "posicao": cursor["cursor"] if cursor else None,
            "maior_sequencia": cursor["maior_sequencia"] if cursor else None,
            "eventos_pendentes": cursor["eventos_pendentes"] if cursor else None,
            "movido_em": cursor["cursor_movido_em"] if cursor else None,
        },
        "resolucoes": {"total": sum(por_nivel.values()), "por_nivel": por_nivel},
        "descartes": {
            "total": sum(motivos.values()),
            "sem_coordenadas": motivos.get("sem_coordenadas", 0),
            "coordenadas_invalidas": motivos.get("coordenadas_invalidas", 0),
        },
        "revisoes_pendentes": {
            "total": geral["revisoes_pendentes"],
            "mais_antiga": geral["revisao_mais_antiga"],
        },
        "dead_letters": {
            "pendente": dead.get("pendente", 0),
            "reprocessado": dead.get("reprocessado", 0),
            "descartado": dead.get("descartado", 0),
            "ultimo_erro_em": geral["ultimo_dead_letter_em"],
        },
        "geocodificacoes_pendentes": {
            "total": int(enderecos["total"]) if enderecos else 0,
            "mais_antiga": enderecos["mais_antiga"] if enderecos else None,
            "tentativas_max": enderecos["tentativas_max"] if enderecos else None,
        },
        "eventos_processados": geral["eventos_processados"],
        "ultimo_evento": {
            "processado_em": geral["ultimo_processado_em"],
            "publicado_em": geral["ultima_publicacao_em"],
        },
        "mirror": {
            "versao": geral["mirror_versao"],
            "alterado_em": geral["mirror_alterado_em"],
            "uc_polygons": geral["uc_polygons"],
            "mirror_uc": geral["mirror_uc"],
            "reparadas": geral["mirror_reparadas"],
            "rejeitadas": geral["mirror_rejeitadas"],
            "ucs": [
                {"nivel": r["nivel"], "fonte": r["fonte"], "quantidade": r["quantidade"]}
                for r in ucs
            ],
        },
        "regeorreferenciamento": {
            "alteracoes": geral["regeo_alteracoes"],
            "ultima_em": geral["regeo_ultima_em"],
        },
    }


def _quando(valor: datetime | None) -> str:
    if valor is None:
        return "—"
    agora = datetime.now(valor.tzinfo)
    segundos = max(0, int((agora - valor).total_seconds()))
    if segundos < 120:
        idade = f"{segundos} s"
    elif segundos < 7200:
        idade = f"{segundos // 60} min"
    elif segundos < 172800:
        idade = f"{segundos // 3600} h"
    else:
        idade = f"{segundos // 86400} d"
    return f"{valor.astimezone():%Y-%m-%d %H:%M:%S} ({idade} ago)"


def _linha_geocodificacoes(g: dict[str, Any]) -> str:
    if not g["total"]:
        return "addresses 0 waiting for the geocoder"
    return (
        f"addresses {g['total']} waiting for the geocoder, oldest {_quando(g['mais_antiga'])}, "
        f"up to {g['tentativas_max']} tries  → d2 geocodificacoes list / retry"
    )


def formatar_status(d: dict[str, Any]) -> str:
    """`d2 status` for a person: one screen."""
    c, r, x, rv = d["cursor"], d["resolucoes"], d["descartes"], d["revisoes_pendentes"]
    dl, m, u = d["dead_letters"], d["mirror"], d["ultimo_evento"]
    if c["posicao"] is None:
        cursor = "cursor    not created yet (the worker has never booted)"
    else:
        cursor = (
            f"cursor    {c['posicao']} of {c['maior_sequencia']}; "
            f"{c['eventos_pendentes']} events waiting (moved {_quando(c['movido_em'])})"
        )
    niveis = ", ".join(
        f"{nome_nivel(int(n))} {q}"
        for n, q in sorted(r["por_nivel"].items(), key=lambda i: int(i[0]))
    )
    ucs = ", ".join(f"{nome_nivel(i['nivel'])}/{i['fonte']} {i['quantidade']}" for i in m["ucs"])
    linhas = [
        "D-2 Georreferenciamento — status",
        cursor,
        f"processed {d['eventos_processados']} events; last {_quando(u['processado_em'])}",
        f"published last demanda.georreferenciada {_quando(u['publicado_em'])}",
        "",
        f"resolved  {r['total']}" + (f"  ({niveis})" if niveis else ""),
        f"discarded {x['total']}  (no coordinates {x['sem_coordenadas']}, "
        f"invalid coordinates {x['coordenadas_invalidas']})",
        f"review    {rv['total']} pending"
        + (f", oldest {_quando(rv['mais_antiga'])}" if rv["total"] else "")
        + ("  → d2 revisoes list / d2 revisoes reprocessar" if rv["total"] else ""),
        _linha_geocodificacoes(d["geocodificacoes_pendentes"]),
        f"dead      {dl['pendente']} pending, {dl['reprocessado']} retried, "
        f"{dl['descartado']} dropped" + ("  → d2 dlq list" if dl["pendente"] else ""),
        "",
        f"mirror    version {m['versao']}, changed {_quando(m['alterado_em'])}",
        f"          {m['mirror_uc']} of {m['uc_polygons']} polygons mirrored "
        f"({m['reparadas']} repaired, {m['rejeitadas']} rejected)",
        f"          {ucs}" if ucs else "          no UC polygons loaded",
        f"re-geo    {d['regeorreferenciamento']['alteracoes']} changes, last "
        f"{_quando(d['regeorreferenciamento']['ultima_em'])}",
    ]
    return "\n".join(linhas)


def _exigir_autocommit(conn: db.Connection) -> None:
    # Each chunk must commit on its own: inside an outer transaction every row lock
    # would be held, and every event withheld, until the whole run ends.
    if not conn.autocommit:
        raise errors.D2Error("this task needs an autocommit connection (one commit per chunk)")


# --- the review queue ------------------------------------------------------------------------


def listar_revisoes(conn: db.Connection, limite: int = 100) -> list[dict[str, Any]]:
    """The pending reviews, oldest first, each with the nearest level ≤ 4 UC (a hint)."""
    with db.mapped_errors():
        return conn.execute(db.q("ops_revisoes_listar"), {"limite": limite}).fetchall()


def reprocessar_revisoes(
    conn: db.Connection, settings: config.Settings, *, lote: int = 500
) -> dict[str, Any]:
    """Resolve the review queue against today's polygons, chunk by chunk.

    Each chunk is one transaction: lock the rows (SKIP LOCKED), resolve them set-based,
    store the resolutions as the handler would (gps/alta, correlacao_id of the original
    event), publish demanda.georreferenciada, delete them from the queue. What stays
    unresolved stays queued. conn must be in autocommit mode.
    """
    _exigir_autocommit(conn)
    relatorio: dict[str, Any] = {"examinadas": 0, "resolvidas": 0, "continuam_pendentes": 0}
    relatorio["por_nivel"] = Counter[str]()
    apos = NIL
    while True:
        parcial = bus.com_retry(
            functools.partial(_revisoes_lote, conn, apos, lote),
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


def _revisoes_lote(
    conn: db.Connection, apos: uuid.UUID, lote: int
) -> tuple[uuid.UUID, int, list[dict[str, Any]]] | None:
    with db.mapped_errors(), conn.transaction():
        pendentes = conn.execute(
            db.q("ops_revisoes_bloquear"), {"apos": apos, "lote": lote}
        ).fetchall()
        if not pendentes:
            return None
        pontos = [(p["coordenadas_lat"], p["coordenadas_lng"]) for p in pendentes]
        linhas = [
            {
                "demanda_id": str(p["demanda_id"]),
                "event_id": str(p["event_id"]),
                "lat": p["coordenadas_lat"],
                "lng": p["coordenadas_lng"],
            }
            | achado.as_json()
            for p, achado in zip(pendentes, geo.resolver_muitos(conn, pontos), strict=True)
            if achado is not None
        ]
        gravadas: list[dict[str, Any]] = []
        if linhas:
            gravadas = conn.execute(
                db.q("ops_revisoes_gravar"), {"rows": json.dumps(linhas)}
            ).fetchall()
            bus.publicar_muitos(
                conn,
                service.TIPO_SAIDA,
                [(service.payload_saida(g), g["correlacao_id"]) for g in gravadas],
                origem=service.ORIGEM,
            )
            conn.execute(
                db.q("ops_revisoes_remover"), {"ids": [linha["demanda_id"] for linha in linhas]}
            )
    return pendentes[-1]["demanda_id"], len(pendentes), gravadas


# --- re-georeferencing -----------------------------------------------------------------------


def regeorreferenciar(
    conn: db.Connection,
    settings: config.Settings,
    *,
    uc: uuid.UUID | None,
    desde: date | None,
    dry_run: bool,
    lote: int = 1000,
) -> dict[str, Any]:
    """Recompute stored resolutions (of `uc` — resolved there or with it in the chain —
    created on or after `desde`) under today's polygons; rewrite those whose answer
    changed, keep the previous answer in d2.resolucoes_geo_historico and publish a new
    demanda.georreferenciada for each, one transaction per chunk (keyset by id).

    Safe to interrupt and to run again: rows already rewritten no longer differ. A
    resolution that no polygon contains today is left as it is and counted.
    With dry_run nothing is written. conn must be in autocommit mode.
    """
    _exigir_autocommit(conn)
    mudancas: Counter[tuple[uuid.UUID, int, uuid.UUID, int]] = Counter()
    relatorio: dict[str, Any] = {"dry_run": dry_run, "examinadas": 0, "alteradas": 0}
    relatorio |= {"sem_poligono_hoje": 0, "publicadas": 0, "lotes": 0}
    apos = NIL
    while True:
        with db.mapped_errors():
            pagina = conn.execute(
                db.q("ops_regeo_pagina"),
                {"apos": apos, "uc": uc, "desde": desde, "lote": lote},
            ).fetchall()
        if not pagina:
            break
        apos = pagina[-1]["id"]
        relatorio["lotes"] += 1
        relatorio["examinadas"] += len(pagina)
        relatorio["sem_poligono_hoje"] += sum(1 for p in pagina if p["nova_uc"] is None)
        diferentes = [p for p in pagina if p["nova_uc"] is not None and _difere(p)]
        if not diferentes:
            continue
        if dry_run:
            mudancas.update(
                (p["unidade_civica_id"], p["nivel_minimo_resolvido"], p["nova_uc"], p["novo_nivel"])
                for p in diferentes
            )
            relatorio["alteradas"] += len(diferentes)
            continue
        ids = [p["id"] for p in diferentes]
        aplicadas = bus.com_retry(
            functools.partial(_regeo_aplicar, conn, ids),
            descricao="regeorreferenciar",
        )
        mudancas.update(
            (
                a["uc_anterior"],
                a["nivel_anterior"],
                a["unidade_civica_id"],
                a["nivel_minimo_resolvido"],
            )
            for a in aplicadas
        )
        relatorio["alteradas"] += len(aplicadas)
        relatorio["publicadas"] += len(aplicadas)
    relatorio["mudancas"] = _agrupar(conn, mudancas)
    return relatorio


def _difere(p: dict[str, Any]) -> bool:
    antes = (p["unidade_civica_id"], p["nivel_minimo_resolvido"], list(p["cadeia_ucs"] or []))
    return antes != (p["nova_uc"], p["novo_nivel"], list(p["nova_cadeia"] or []))


def _regeo_aplicar(conn: db.Connection, ids: list[uuid.UUID]) -> list[dict[str, Any]]:
    with db.mapped_errors(), conn.transaction():
        aplicadas = conn.execute(db.q("ops_regeo_aplicar"), {"ids": ids}).fetchall()
        if not aplicadas:
            return []
        eventos = bus.publicar_muitos(
            conn,
            service.TIPO_SAIDA,
            [(service.payload_saida(a), a["correlacao_id"]) for a in aplicadas],
            origem=service.ORIGEM,
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
        conn.execute(db.q("ops_regeo_historico"), {"rows": json.dumps(historico)})
    return aplicadas


def _agrupar(
    conn: db.Connection, mudancas: Counter[tuple[uuid.UUID, int, uuid.UUID, int]]
) -> list[dict[str, Any]]:
    ids = sorted({k[0] for k in mudancas} | {k[2] for k in mudancas})
    nomes: dict[uuid.UUID, str] = {}
    if ids:
        with db.mapped_errors():
            for row in conn.execute(db.q("ops_uc_nomes"), {"ids": ids}):
                nomes[row["unidade_civica_id"]] = row["nome"]
    return [
        {
            "de": {"unidade_civica_id": str(de), "nome": nomes.get(de), "nivel": nivel_de},
            "para": {"unidade_civica_id": str(para), "nome": nomes.get(para), "nivel": nivel_para},
            "quantidade": quantidade,
        }
        for (de, nivel_de, para, nivel_para), quantidade in mudancas.most_common()
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
            f"({nome_nivel(de['nivel'])}) → {para['nome'] or para['unidade_civica_id']} "
            f"({nome_nivel(para['nivel'])})"
        )
    return "\n".join(linhas)


def formatar_revisoes(linhas: list[dict[str, Any]]) -> str:
    """`d2 revisoes list` for a person."""
    if not linhas:
        return "no pending reviews"
    saida = []
    for r in linhas:
        perto = (
            f"nearest {r['uc_proxima_nome']} ({nome_nivel(r['uc_proxima_nivel'])}) "
            f"{r['uc_proxima_km']} km"
            if r["uc_proxima_nome"]
            else "no polygon nearby"
        )
        saida.append(
            f"{r['demanda_id']}  {r['coordenadas_lat']:.5f},{r['coordenadas_lng']:.5f}  "
            f"waiting {r['aguardando']}  {perto}"
        )
    return "\n".join(saida)
