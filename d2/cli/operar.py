"""Running and operating D-2: `d2 worker`, `d2 status`, `d2 dlq …`, `d2 revisoes …`,
`d2 regeorreferenciar`, `d2 mapa`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from d2 import ambiente, config, db, dead_letters, logs, ops, regeo, worker
from d2.cli.saida import comando, date_arg, emitir, event_ids, fila, flag, grupo, positivo, uuid_arg


def cmd_worker(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    runner = worker.Worker(
        settings, url=ambiente.url_do_banco(settings), batch_size=args.batch_size
    )
    runner.instalar_sinais()
    resultado = runner.executar(drain=args.drain)
    if args.drain:
        contagem = dict(resultado.contagem)
        emitir(args, {"eventos": sum(contagem.values()), "desfechos": contagem})
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        emitir(args, ops.status(conn), ops.formatar_status)
    return 0


def _texto_dead_letters(linhas: list[dict[str, Any]], status: str | None) -> str:
    if not linhas:
        return "no dead letters" + (f" with status {status}" if status else "")
    return "\n".join(
        f"{r['event_id']}  seq={r['sequence_number']}  tentativas={r['tentativas']}  "
        f"{r['status']:12} {r['ultimo_erro_em']:%Y-%m-%d %H:%M:%S}  {r['erro']}"
        for r in linhas
    )


def cmd_dlq_list(args: argparse.Namespace) -> int:
    status = None if args.status == "todos" else args.status
    with db.connect(ambiente.url()) as conn:
        linhas = dead_letters.listar(
            conn, consumidor=args.consumer, status=status, limite=args.limit
        )
    emitir(args, linhas, lambda ls: _texto_dead_letters(ls, status))
    return 0


def cmd_dlq_retry(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    ids = event_ids(args)
    with db.connect(ambiente.url(), autocommit=True) as conn:
        emitir(args, ops.reprocessar_dead_letters(conn, config.load(), ids))
    return 0


def cmd_revisoes_list(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        emitir(args, ops.listar_revisoes(conn, args.limit), ops.formatar_revisoes)
    return 0


def cmd_revisoes_reprocessar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(ambiente.url(), autocommit=True) as conn:
        emitir(args, regeo.reprocessar_revisoes(conn, config.load()))
    return 0


def cmd_regeorreferenciar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    uc = uuid_arg(args.uc) if args.uc else None
    desde = date_arg(args.since) if args.since else None
    with db.connect(ambiente.url(), autocommit=True) as conn:
        relatorio = regeo.regeorreferenciar(
            conn, config.load(), uc=uc, desde=desde, dry_run=args.dry_run, lote=args.batch_size
        )
    emitir(args, relatorio, regeo.formatar_regeo)
    return 0


def cmd_mapa(args: argparse.Namespace) -> int:
    from d2 import mapa  # folium and its templates: ~1 s the other commands need not pay

    with db.connect(ambiente.url(), autocommit=True) as conn:
        resumo = mapa.gerar_mapa(conn, Path(args.output), limite=args.limit, tiles=args.tiles)
    emitir(
        args,
        resumo,
        lambda r: (
            f"{r['saida']}: {r['revisoes']} reviews, {r['dead_letters']} dead letters "
            f"(+{r['dead_letters_sem_coordenadas']} without coordinates), "
            f"{r['resolucoes']} resolutions, {r['poligonos']} polygons"
        ),
    )
    return 0


def registrar(sub: Any) -> None:
    p_worker = comando(
        sub,
        "worker",
        cmd_worker,
        help="consume demanda.normalizada until SIGTERM (or --drain)",
        description=(
            "Consume demanda.normalizada until SIGTERM (or --drain). One worker per database"
            " leads (a lock only d2_worker may take); the others stand by. With"
            " D2_METRICS_PORT set it serves /metrics, /healthz and /readyz on D2_METRICS_HOST"
            " (default 127.0.0.1); /healthz turns 503 when the loop stalls or, with"
            " D2_STANDBY_MAX_SECONDS > 0, when it has stood by for longer."
        ),
    )
    p_worker.add_argument(
        "--drain",
        action="store_true",
        help="process everything pending, print the outcomes as JSON, then exit 0",
    )
    p_worker.add_argument(
        "--batch-size",
        type=positivo,
        default=None,
        help=(
            "events per batch (default D2_BATCH_SIZE or 500); above 1 the next batch is"
            " read and resolved on a second connection while one is written;"
            " 1 = one event at a time, strictly in turn"
        ),
    )
    p_worker.add_argument("--log-level", default="INFO")

    comando(
        sub,
        "status",
        cmd_status,
        json_flag=True,
        help="one screen: cursor, outcomes, reviews, mirror",
    )

    dlq = grupo(sub, "dlq", help="the dead letters: events the worker could not handle")
    p_list, p_retry = fila(
        dlq,
        cmd_dlq_list,
        cmd_dlq_retry,
        list_help="list dead letters",
        retry_help="run dead letters through the handler again",
        all_help="every pending dead letter",
    )
    p_list.add_argument(
        "--status",
        default="pendente",
        choices=["pendente", "reprocessado", "descartado", "todos"],
    )
    flag(
        p_list,
        "--consumer",
        "--consumidor",
        default=None,
        help="only this consumer's, e.g. D-2 or D-2/replica (default: all)",
    )
    p_retry.add_argument("--log-level", default="INFO")

    revisoes = grupo(sub, "revisoes", help="the manual review queue (points in no polygon)")
    comando(
        revisoes,
        "list",
        cmd_revisoes_list,
        json_flag=True,
        limite=100,
        help="pending reviews, oldest first",
    )
    p_rev_re = comando(
        revisoes,
        "reprocessar",
        cmd_revisoes_reprocessar,
        help="resolve the queue against today's polygons; publishes what now resolves",
    )
    p_rev_re.add_argument("--log-level", default="WARNING")

    p_regeo = comando(
        sub,
        "regeorreferenciar",
        cmd_regeorreferenciar,
        json_flag=True,
        help="recompute stored resolutions under today's polygons; publish the changes",
    )
    p_regeo.add_argument(
        "--uc", help="only resolutions of this UC (resolved there or in its chain)"
    )
    flag(
        p_regeo,
        "--since",
        "--desde",
        metavar="DATE",
        help="only resolutions created on or after DATE (YYYY-MM-DD)",
    )
    p_regeo.add_argument("--dry-run", action="store_true", help="print what would change, by UC")
    flag(
        p_regeo,
        "--batch-size",
        "--lote",
        type=positivo,
        default=5000,
        help="resolutions per transaction (default 5000)",
    )
    p_regeo.add_argument("--log-level", default="WARNING")

    p_mapa = comando(sub, "mapa", cmd_mapa, help="a self-contained HTML map of what needs a human")
    flag(p_mapa, "--output", "--saida", required=True, metavar="FILE.html")
    p_mapa.add_argument(
        "--limit", type=positivo, default=5000, help="points of each kind (default 5000)"
    )
    p_mapa.add_argument(
        "--tiles", default=None, help="a folium tile layer, e.g. OpenStreetMap (needs internet)"
    )
