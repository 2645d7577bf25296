"""`d2 mirror rebuild|sync|source|publish-state|resume`: the PostGIS mirror of
core.uc_polygons and the event-synced replica of spec Phase 2."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, errors
from d2.cli import database_url
from d2.cli.common import comando, emitir, grupo
from d2.territorio import mirror, replica


def cmd_mirror_rebuild(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        linhas = mirror.reconstruir(conn)
    emitir(args, linhas, lambda ls: "\n".join(f"{r['estado']:10} {r['quantidade']}" for r in ls))
    return 0


def _texto_sync(feito: dict[str, Any]) -> str:
    if not feito["aplicado"]:
        return "another applier is at work; it applies the pending changes (--wait to wait)"
    return (
        f"{feito['mudancas']} changes applied ({feito['poligonos']} polygons) in "
        f"{feito['segundos']:.1f} s; mirror version {feito['versao']}"
    )


def cmd_mirror_sync(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        try:
            feito = mirror.aplicar(conn, esperar=args.wait)
        except errors.LockTimeout as exc:
            raise errors.LockTimeout(
                f"{exc}; {mirror.pendentes(conn)} change(s) of core.uc_polygons wait",
                sessoes=exc.sessoes,
            ) from exc
    dados = {"aplicado": False} if feito is None else {"aplicado": True} | feito.as_json()
    emitir(args, dados, _texto_sync)
    return 0


def _texto_fonte(resposta: dict[str, Any]) -> str:
    if "mirror" not in resposta:
        return f"the mirror reads {resposta['fonte']}"
    reconstruido = ", ".join(f"{k} {v}" for k, v in resposta["mirror"].items()) or "empty"
    linha = f"the mirror now reads {resposta['fonte']}; rebuilt: {reconstruido}"
    if resposta["replica"] is not None:
        linha += f"; replica caught up: {resposta['replica']}"
    return linha


def cmd_mirror_source(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        if args.fonte is None:
            resposta: dict[str, Any] = {"fonte": replica.fonte(conn)}
        else:
            resposta = replica.definir_fonte(conn, config.load(), args.fonte)
    emitir(args, resposta, _texto_fonte)
    return 0


def cmd_mirror_publish_state(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn, conn.transaction():
        feito = replica.publicar_estado(conn)
    emitir(
        args,
        feito,
        lambda f: (
            f"published {f['adicionados']} uc.poligono_adicionado, "
            f"{f['atualizados']} uc.poligono_atualizado, "
            f"{f['removidos']} uc.poligono_removido; "
            f"{f['recusados']} rows not publishable (not a GeoJSON polygon, or level)"
        ),
    )
    return 0


def cmd_mirror_resume(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        feito = replica.retomar(conn, por=args.by, descartar_remocoes=args.drop_removals)
    emitir(
        args,
        feito,
        lambda f: (
            f"the replica resumed at event {f['event_id']}"
            + (
                f"; {f['descartados']} held removals dropped"
                if args.drop_removals
                else "; it applies what it held"
            )
        ),
    )
    return 0


def registrar(sub: Any) -> None:
    grupo_mirror = grupo(sub, "mirror", help="the PostGIS mirror of core.uc_polygons")
    comando(
        grupo_mirror,
        "rebuild",
        cmd_mirror_rebuild,
        json_flag=True,
        help="rebuild it whole from its source",
    )
    p_sync = comando(
        grupo_mirror,
        "sync",
        cmd_mirror_sync,
        json_flag=True,
        help="apply the changes writers recorded on core.uc_polygons (the worker does it too)",
        description=(
            "Brings the mirror and its chains up to date with every change of "
            "core.uc_polygons committed so far, in one transaction that moves the mirror "
            "version, then rebuilds the clean intervals of the bands it touched. A running "
            "worker does the same at each poll."
        ),
    )
    p_sync.add_argument(
        "--wait",
        action="store_true",
        help="if another applier is at work, wait for it (D2_LOCK_TIMEOUT at most: then exit 1 "
        "naming it), then apply what is left: on return every change committed before the "
        "call is in the mirror (for scripts)",
    )
    p_fonte = comando(
        grupo_mirror,
        "source",
        cmd_mirror_source,
        antigos=("fonte",),
        json_flag=True,
        help="show or switch where the mirror reads its polygons: core or eventos",
        description=(
            "core (the default) reads core.uc_polygons; eventos reads the replica that the "
            "worker feeds from uc.poligono_adicionado / _atualizado / _removido events with "
            "a cursor of its own. Switching catches the replica up with the log (to "
            "eventos) and rebuilds the mirror from the new source; every worker follows "
            "the database's setting at its next poll."
        ),
    )
    p_fonte.add_argument("fonte", nargs="?", choices=replica.FONTES)
    comando(
        grupo_mirror,
        "publish-state",
        cmd_mirror_publish_state,
        antigos=("publicar-estado",),
        json_flag=True,
        help="publish core.uc_polygons as uc.poligono_* events (what changed since last time)",
        description=(
            "For a log that predates the importers' events: one uc.poligono_adicionado per "
            "row never published, uc.poligono_atualizado for a row changed since, "
            "uc.poligono_removido for a published row now gone. Idempotent per row version: "
            "a second run publishes nothing. The importers do the same in their transaction."
        ),
    )
    p_resume = comando(
        grupo_mirror,
        "resume",
        cmd_mirror_resume,
        json_flag=True,
        help="resume the event-synced replica its breaker stopped (see d2 status)",
        description=(
            "The replica stops before an event when more polygons were removed or taken, or "
            "more stored answers taken, by producers other than D-2's importers than "
            "d2.replica_limites allows within its window. Check those events first (d2 status "
            "names the one it holds). Resuming applies what it held and counts again from "
            "now; --drop-removals first ends every such removal still waiting as "
            "'descartado' (the mirror keeps those polygons)."
        ),
    )
    p_resume.add_argument(
        "--drop-removals",
        action="store_true",
        help="drop the waiting removals that D-2's importers did not publish",
    )
    p_resume.add_argument("--by", required=True, help="who resumes it (recorded)")
