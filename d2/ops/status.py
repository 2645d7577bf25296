"""Operator tasks over the service: status, dead-letter retry, the review queue and
re-georeferencing when polygons change.

Everything here is safe to run while the worker runs: rows are claimed with row locks
(the review queue with SKIP LOCKED, resolutions with FOR UPDATE and a second look at
the answer under the lock), and each chunk's writes and its demanda.georreferenciada
events commit together, so an interrupted run resumes by running it again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from d2 import config, db
from d2.eventlog import bus
from d2.geocoder.nominatim import client as nominatim
from d2.handler import handler, outputs
from d2.territorio import mirror

NOMES_NIVEL = {1: "logradouro", 2: "bairro", 3: "distrito", 4: "município", 5: "UF"}
NOMES_NIVEL |= {6: "região", 7: "país"}


def nome_nivel(nivel: int | None) -> str:
    return NOMES_NIVEL.get(nivel or 0, f"nível {nivel}")


# --- dead letters ----------------------------------------------------------------------------


# --- status ----------------------------------------------------------------------------------


def geocodificador(settings: config.Settings, conn: db.Connection) -> dict[str, str]:
    """Which geocoder the address path has, as a worker starting now would choose it."""
    if not settings.geocoder_ativo:
        return {"modo": "desligado", "onde": "D2_GEOCODER=off"}
    escolha = nominatim.escolher(settings, conn)
    return {"modo": escolha.modo, "onde": escolha.onde}


def status(conn: db.Connection, settings: config.Settings | None = None) -> dict[str, Any]:
    """Everything `d2 status` shows, as plain JSON-able values (timestamps as datetimes);
    with settings, also the address path's geocoder. One helper per section."""
    with db.mapped_errors():
        geral = conn.execute(
            db.q("ops_status_overall"),
            {
                "consumidor": handler.CONSUMER,
                "tipo_saida": outputs.TIPO_SAIDA,
                "origem": handler.ORIGEM,
            },
        ).fetchone()
    assert geral is not None
    return {
        "cursor": _cursor(conn),
        "resolucoes": _resolucoes(conn),
        "descartes": _descartes(conn),
        "revisoes_pendentes": {
            "total": geral["revisoes_pendentes"],
            "mais_antiga": geral["revisao_mais_antiga"],
        },
        "revisoes_tratadas": _revisoes_tratadas(conn, settings),
        # Demandas whose demanda_id came again with other content: an operator decides.
        "conflitos": _conflitos(conn),
        "dead_letters": _dead_letters(conn, geral),
        "geocodificador": geocodificador(settings, conn) if settings is not None else None,
        "geocodificacoes_pendentes": _geocodificacoes(conn),
        "eventos_processados": geral["eventos_processados"],
        "ultimo_evento": {
            "processado_em": geral["ultimo_processado_em"],
            "publicado_em": geral["ultima_publicacao_em"],
        },
        "mirror": _mirror(conn, geral),
        "regeorreferenciamento": _regeo(conn, geral),
        "territorio": _territorio(conn),
        "replica": _replica(conn),
    }


def _cursor(conn: db.Connection) -> dict[str, Any]:
    """The consumer's cursor, and what the event log's fence holds back from it."""
    with db.mapped_errors():
        cursor = conn.execute(db.q("ops_status_cursor"), {"tipo": handler.TIPO_ENTRADA}).fetchone()
    fence = bus.fence(conn, handler.TIPO_ENTRADA)
    return {
        "tipo_evento": handler.TIPO_ENTRADA,
        "posicao": cursor["cursor"] if cursor else None,
        "maior_sequencia": cursor["maior_sequencia"] if cursor else None,
        "eventos_pendentes": cursor["eventos_pendentes"] if cursor else None,
        "movido_em": cursor["cursor_movido_em"] if cursor else None,
        # Committed events an older write transaction (anywhere in the cluster)
        # still holds back from the readers: delayed, never lost.
        "retidos": fence.retidos,
        "atraso_retidos_s": round(fence.atraso_s, 3),
        # Who holds them back, named: the transaction holding the fence (any database
        # of the cluster).
        "retido_por": bus.fence_holder(conn) if fence.retidos else None,
    }


def _resolucoes(conn: db.Connection) -> dict[str, Any]:
    with db.mapped_errors():
        linhas = conn.execute(db.q("ops_status_resolucoes")).fetchall()
    por_nivel = {str(r["nivel"]): int(r["quantidade"]) for r in linhas}
    return {"total": sum(por_nivel.values()), "por_nivel": por_nivel}


def _descartes(conn: db.Connection) -> dict[str, int]:
    with db.mapped_errors():
        linhas = conn.execute(db.q("ops_status_discards")).fetchall()
    motivos = {r["motivo"]: int(r["quantidade"]) for r in linhas}
    return {
        "total": sum(motivos.values()),
        "sem_coordenadas": motivos.get("sem_coordenadas", 0),
        "coordenadas_invalidas": motivos.get("coordenadas_invalidas", 0),
    }


def _revisoes_tratadas(conn: db.Connection, settings: config.Settings | None) -> dict[str, Any]:
    """Reviews closed without a polygon: answered by the near rule (automatically), by an
    operator, or discarded; with the rule's distance when the settings are known."""
    with db.mapped_errors():
        linhas = conn.execute(db.q("ops_status_revisoes_closed")).fetchall()
    por_passo = {r["passo"]: int(r["quantidade"]) for r in linhas}
    return {passo: por_passo.get(passo, 0) for passo in ("proximidade", "operador", "descarte")} | {
        "ultima_em": max((r["ultima_em"] for r in linhas), default=None),
        "distancia_m": settings.revisao_distancia_m if settings is not None else None,
    }


def _conflitos(conn: db.Connection) -> dict[str, int]:
    with db.mapped_errors():
        conflitos = conn.execute(db.q("conflicts_count")).fetchone()
    return {
        "demandas": int(conflitos["demandas"]) if conflitos else 0,
        "eventos": int(conflitos["eventos"]) if conflitos else 0,
    }


def _dead_letters(conn: db.Connection, geral: dict[str, Any]) -> dict[str, Any]:
    with db.mapped_errors():
        linhas = conn.execute(
            db.q("ops_status_dead_letters"), {"consumidor": handler.CONSUMER}
        ).fetchall()
    dead = {r["status"]: int(r["quantidade"]) for r in linhas}
    return {
        "pendente": dead.get("pendente", 0),
        "reprocessado": dead.get("reprocessado", 0),
        "descartado": dead.get("descartado", 0),
        "ultimo_erro_em": geral["ultimo_dead_letter_em"],
    }


def _geocodificacoes(conn: db.Connection) -> dict[str, Any]:
    with db.mapped_errors():
        enderecos = conn.execute(db.q("geocoder_summary")).fetchone()
    return {
        "total": int(enderecos["total"]) if enderecos else 0,
        "mais_antiga": enderecos["mais_antiga"] if enderecos else None,
        "tentativas_max": enderecos["tentativas_max"] if enderecos else None,
    }


def _mirror(conn: db.Connection, geral: dict[str, Any]) -> dict[str, Any]:
    with db.mapped_errors():
        ucs = conn.execute(db.q("ops_status_ucs")).fetchall()
    return {
        "versao": geral["mirror_versao"],
        "alterado_em": geral["mirror_alterado_em"],
        "uc_polygons": geral["uc_polygons"],
        "mirror_uc": geral["mirror_uc"],
        "reparadas": geral["mirror_reparadas"],
        "rejeitadas": geral["mirror_rejeitadas"],
        "mudancas_pendentes": geral["mirror_pendentes"],
        "pendente_desde": geral["mirror_pendente_desde"],
        # The sessions holding the mirror's locks while changes wait, named.
        "travado_por": mirror.lock_holders(conn) if geral["mirror_pendentes"] else [],
        "ucs": [
            {"nivel": r["nivel"], "fonte": r["fonte"], "quantidade": r["quantidade"]} for r in ucs
        ],
    }


def _regeo(conn: db.Connection, geral: dict[str, Any]) -> dict[str, Any]:
    with db.mapped_errors():
        acompanhamento = conn.execute(db.q("regeo_pending")).fetchone()
    assert acompanhamento is not None
    return {
        "alteracoes": geral["regeo_alteracoes"],
        "ultima_em": geral["regeo_ultima_em"],
        "areas_pendentes": acompanhamento["areas"],
        "resolucoes_na_fila": acompanhamento["resolucoes"],
        "revisoes_na_fila": acompanhamento["revisoes"],
        "area_mais_antiga_em": acompanhamento["area_mais_antiga_em"],
    }


def _territorio(conn: db.Connection) -> dict[str, int]:
    with db.mapped_errors():
        territorio = conn.execute(db.q("ops_status_territorio")).fetchall()
    return {r["decisao"]: int(r["quantidade"]) for r in territorio} | {
        "alternativas_pendentes": sum(int(r["pendentes"]) for r in territorio)
    }


def _replica(conn: db.Connection) -> dict[str, Any]:
    with db.mapped_errors():
        replica = conn.execute(db.q("replica_status")).fetchone()
        parada = conn.execute(db.q("replica_stop_open")).fetchone()
    return {
        "fonte": replica["fonte"] if replica else "core",
        "poligonos": int(replica["poligonos"]) if replica else 0,
        "eventos": int(replica["eventos"]) if replica else 0,
        "ultimo_evento_em": replica["ultimo_evento_em"] if replica else None,
        # The breaker holds the replica before this event until `d2 mirror resume`.
        "parada": None
        if parada is None
        else {
            "event_id": parada["event_id"],
            "motivo": parada["motivo"],
            "parada_em": parada["parada_em"],
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


def _linha_tratadas(t: dict[str, Any]) -> str:
    regra = f" (one município within {t['distancia_m']:g} m)" if t["distancia_m"] else ""
    if t["distancia_m"] == 0:
        regra = " (off: D2_REVISAO_DISTANCIA_M=0)"
    return (
        f"closed    {t['proximidade']} answered by the near rule{regra}, "
        f"{t['operador']} by an operator, {t['descarte']} discarded"
        + (f"; last {_quando(t['ultima_em'])}" if t["ultima_em"] else "")
    )


def _linha_geocodificacoes(g: dict[str, Any]) -> str:
    if not g["total"]:
        return "addresses 0 waiting for the geocoder"
    return (
        f"addresses {g['total']} waiting for the geocoder, oldest {_quando(g['mais_antiga'])}, "
        f"up to {g['tentativas_max']} tries  → d2 geocoding list / retry"
    )


_MODOS = {
    nominatim.LOCAL: "Nominatim in process",
    nominatim.HTTP: "Nominatim over HTTP",
    nominatim.NENHUM: "no Nominatim: addresses answered at the bairro or município from "
    "places and CEPs",
    "desligado": "off: address-only demands discarded",
}


def _linha_geocodificador(g: dict[str, str] | None) -> list[str]:
    if g is None:
        return []
    return [f"geocoder  {_MODOS.get(g['modo'], g['modo'])} ({g['onde']})"]


def _linhas_replica(r: dict[str, Any]) -> list[str]:
    linhas = []
    if r["fonte"] == "eventos" or r["eventos"]:
        linhas.append(
            f"replica   {r['poligonos']} polygons from {r['eventos']} uc.poligono_* events, "
            f"last {_quando(r['ultimo_evento_em'])}"
            + ("" if r["fonte"] == "eventos" else " (the mirror reads core)")
        )
    p = r["parada"]
    if p is not None:
        linhas.append(
            f"          STOPPED by its breaker since {_quando(p['parada_em'])}, before event "
            f"{p['event_id']}: {p['motivo']}  → d2 mirror resume [--drop-removals]"
        )
    return linhas


def formatar_status(d: dict[str, Any]) -> str:
    """`d2 status` for a person: one screen."""
    c, r, x, rv = d["cursor"], d["resolucoes"], d["descartes"], d["revisoes_pendentes"]
    dl, m, u = d["dead_letters"], d["mirror"], d["ultimo_evento"]
    g, t = d["regeorreferenciamento"], d["territorio"]
    if c["posicao"] is None:
        cursor = "cursor    not created yet (the worker has never booted)"
    else:
        cursor = (
            f"cursor    {c['posicao']} of {c['maior_sequencia']}; "
            f"{c['eventos_pendentes']} events waiting (moved {_quando(c['movido_em'])})"
        )
    if c["retidos"]:
        quem = c["retido_por"]
        cursor += (
            f"\n          {c['retidos']} committed events held back for "
            f"{c['atraso_retidos_s']:.1f} s by the oldest transaction still open in the "
            + (
                f"cluster: {db.descrever_sessao(quem)}  → if it stays, end it: "
                f"SELECT pg_terminate_backend({quem['pid']})"
                if quem and quem.get("pid")
                else f"cluster: {db.descrever_sessao(quem)}"
                if quem
                else "cluster"
            )
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
        + ("  → d2 revisoes list, then reprocessar, atribuir or descartar" if rv["total"] else ""),
        _linha_tratadas(d["revisoes_tratadas"]),
        _linha_geocodificacoes(d["geocodificacoes_pendentes"]),
        *_linha_geocodificador(d.get("geocodificador")),
        f"conflict  {d['conflitos']['demandas']} demandas await an operator "
        f"({d['conflitos']['eventos']} events with another place)  → d2 conflicts list"
        if d["conflitos"]["demandas"]
        else "conflict  0 demandas with two versions",
        f"dead      {dl['pendente']} pending, {dl['reprocessado']} retried, "
        f"{dl['descartado']} dropped" + ("  → d2 dlq list" if dl["pendente"] else ""),
        "",
        f"mirror    version {m['versao']}, changed {_quando(m['alterado_em'])}",
        f"          {m['mirror_uc']} of {m['uc_polygons']} polygons mirrored "
        f"({m['reparadas']} repaired, {m['rejeitadas']} rejected)",
        f"          {m['mudancas_pendentes']} changes of core.uc_polygons waiting, since "
        f"{_quando(m['pendente_desde'])}  → the worker applies them; d2 mirror sync --wait"
        + "".join(
            f"\n          the mirror's lock: {db.descrever_sessao(s)} holds {s['modo']} on "
            f"{s['tabela']}"
            for s in m["travado_por"]
        )
        if m["mudancas_pendentes"]
        else "          every change of core.uc_polygons applied",
        f"          {ucs}" if ucs else "          no UC polygons loaded",
        *_linhas_replica(d["replica"]),
        f"re-geo    {g['alteracoes']} changes, last {_quando(g['ultima_em'])}; follow-up: "
        + (
            f"{g['areas_pendentes']} changed areas, {g['resolucoes_na_fila']} resolutions and "
            f"{g['revisoes_na_fila']} reviews queued"
            if g["areas_pendentes"] or g["resolucoes_na_fila"] or g["revisoes_na_fila"]
            else "up to date"
        ),
        "drawn     "
        + (
            ", ".join(f"{k} {v}" for k, v in t.items() if k != "alternativas_pendentes")
            + f"; {t['alternativas_pendentes']} alternatives await a moderator"
            + ("  → d2 territorio list" if t["alternativas_pendentes"] else "")
            if len(t) > 1
            else "no citizen-drawn polygons received"
        ),
    ]
    return "\n".join(linhas)


# --- the review queue ------------------------------------------------------------------------
