"""The `d2` command: parses arguments, calls one function, prints, sets the exit code."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from d2 import ambiente, config, db, dead_letters, errors, geo

Handler = Callable[[argparse.Namespace], int]


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))


# --- db ----------------------------------------------------------------------------------


def cmd_db_start(args: argparse.Namespace) -> int:
    from d2 import embedded, migrations

    settings = config.load()
    cluster = embedded.start(settings.home)
    migrations.upgrade(cluster.url())
    print(f"embedded PostGIS running; DATABASE_URL={cluster.url()}")
    return 0


def cmd_db_stop(args: argparse.Namespace) -> int:
    from d2 import embedded

    stopped = embedded.stop(config.load().home)
    print("stopped" if stopped else "not running")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    from d2 import embedded

    state = embedded.status(config.load().home)
    if args.json:
        _print_json(state)
    else:
        for key, value in state.items():
            print(f"{key:12} {value}")
    return 0 if state["running"] else 3


def cmd_db_url(args: argparse.Namespace) -> int:
    url = ambiente.url()
    print(url if args.show_password else mascarar_senha(url))
    return 0


def mascarar_senha(url: str) -> str:
    """The URL or conninfo with its password (user:pw@, ?password=, password=) as ***:
    terminals, shell histories and CI logs keep what is printed."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    import psycopg.conninfo

    if url.startswith(("postgresql://", "postgres://")):
        partes = urlsplit(url)
        rede = partes.netloc
        if "@" in rede:
            credenciais, servidor = rede.rsplit("@", 1)
            if ":" in credenciais:
                rede = credenciais.split(":", 1)[0] + ":***@" + servidor
        consulta = [
            (k, "***" if k == "password" else v)
            for k, v in parse_qsl(partes.query, keep_blank_values=True)
        ]
        return urlunsplit(partes._replace(netloc=rede, query=urlencode(consulta, safe="/*")))
    try:
        campos = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(unparsable DATABASE_URL, not shown)"
    if "password" in campos:
        campos["password"] = "***"
    return psycopg.conninfo.make_conninfo(**campos)  # type: ignore[arg-type]


def cmd_db_verify(args: argparse.Namespace) -> int:
    from d2 import verify

    report = verify.verify(ambiente.url())
    if args.json:
        _print_json(report)
    else:
        for item in report["checks"]:
            print(f"{'ok ' if item['ok'] else 'BAD'}  {item['check']}")
    return 0 if report["ok"] else 1


# --- schema and resolver -------------------------------------------------------------------


def cmd_migrate(args: argparse.Namespace) -> int:
    from d2 import migrations

    url = ambiente.url()
    if args.downgrade:
        migrations.downgrade(url, args.downgrade)
    else:
        migrations.upgrade(url, args.revision)
    print(f"database at revision {migrations.current(url)}")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    lat = geo.parse_cli_coordinate(args.lat, "lat", 90)
    lng = geo.parse_cli_coordinate(args.lng, "lng", 180)
    with db.connect(ambiente.url()) as conn:
        found = geo.resolver(conn, lat, lng)
        if found is None:
            _print_json({"lat": lat, "lng": lng, "resolvido": False})
            return 0
        names = {
            str(row["unidade_civica_id"]): row
            for row in conn.execute(db.q("uc_names"), {"ids": list(found.cadeia_ucs)})
        }
    result: dict[str, Any] = {
        "lat": geo.arredondar(lat),
        "lng": geo.arredondar(lng),
        "resolvido": True,
    }
    result |= found.as_json()
    result["cadeia"] = [
        {"unidade_civica_id": uc, "nome": names[uc]["nome"], "nivel": names[uc]["nivel"]}
        for uc in found.cadeia_ucs
        if uc in names
    ]
    _print_json(result)
    return 0


def cmd_mirror_rebuild(args: argparse.Namespace) -> int:
    from d2 import mirror

    with db.connect(ambiente.url(), autocommit=True) as conn:
        rows = mirror.reconstruir(conn)
    for row in rows:
        print(f"{row['estado']:10} {row['quantidade']}")
    return 0


def cmd_mirror_sync(args: argparse.Namespace) -> int:
    from d2 import mirror

    with db.connect(ambiente.url(), autocommit=True) as conn:
        feito = mirror.aplicar(conn, esperar=args.wait)
    if feito is None:
        texto = "another applier is at work; it applies the pending changes (--wait to wait)"
        _print_json({"aplicado": False}) if args.json else print(texto)
        return 0
    if args.json:
        _print_json({"aplicado": True} | feito.as_json())
    else:
        print(
            f"{feito.mudancas} changes applied ({feito.poligonos} polygons) in "
            f"{feito.segundos:.1f} s; mirror version {feito.versao}"
        )
    return 0


# --- IBGE import and sample -----------------------------------------------------------------


def cmd_import_ibge(args: argparse.Namespace) -> int:
    from d2.importers import ibge

    camadas = ("municipios", "ufs", "regioes", "pais", "bairros")
    files = {c: Path(getattr(args, c)) for c in camadas if getattr(args, c)}
    if args.directory is None and not files:
        raise errors.InvalidInput("give a directory of IBGE files or --municipios/--ufs/... FILE")
    summary = ibge.run_import(
        ambiente.url(),
        directory=Path(args.directory) if args.directory else None,
        files=files or None,
        tolerancia=args.tolerancia,
        progress=not args.no_progress and not args.json and sys.stderr.isatty(),
    )
    if args.json:
        _print_json(summary.as_json())
    else:
        print(summary.format_text())
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from d2.importers import sample, sample_osm

    for path in sample.write_sample(Path(args.saida)):
        print(path)
    print(sample_osm.write_osm(Path(args.saida) / "amostra.osm"))
    return 0


def _tolerancia(text: str) -> float:
    try:
        valor = float(text.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if valor < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return valor


# --- worker and dead letters ---------------------------------------------------------------


def cmd_worker(args: argparse.Namespace) -> int:
    from d2 import logs, worker

    logs.configure(args.log_level)
    settings = config.load()
    runner = worker.Worker(
        settings, url=ambiente.url_do_banco(settings), batch_size=args.batch_size
    )
    runner.instalar_sinais()
    result = runner.executar(drain=args.drain)
    if args.drain:
        _print_json({"eventos": sum(result.contagem.values()), "desfechos": dict(result.contagem)})
    return 0


def cmd_dlq_list(args: argparse.Namespace) -> int:
    status = None if args.status == "todos" else args.status
    with db.connect(ambiente.url()) as conn:
        rows = dead_letters.listar(
            conn, consumidor=args.consumidor, status=status, limite=args.limit
        )
    if args.json:
        _print_json(rows)
        return 0
    if not rows:
        print("no dead letters" + (f" with status {status}" if status else ""))
    for row in rows:
        print(
            f"{row['event_id']}  seq={row['sequence_number']}  tentativas={row['tentativas']}  "
            f"{row['status']:12} {row['ultimo_erro_em']:%Y-%m-%d %H:%M:%S}  {row['erro']}"
        )
    return 0


def cmd_dlq_retry(args: argparse.Namespace) -> int:
    from d2 import logs, ops

    logs.configure(args.log_level)
    if not args.all and not args.event_id:
        raise errors.InvalidInput("give an EVENT_ID or --all")
    event_ids = None if args.all else [_uuid_arg(args.event_id)]
    with db.connect(ambiente.url(), autocommit=True) as conn:
        report = ops.reprocessar_dead_letters(conn, config.load(), event_ids)
    _print_json(report)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from d2 import demo, logs

    logs.configure("INFO" if args.verbose else "CRITICAL")
    report = demo.executar(ambiente.url(), args.eventos)
    if args.json:
        _print_json(report)
        return 0
    print(demo.formatar(report))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import os

    from d2 import bench, logs

    # The worker's per-event warnings (reviews, discards) are noise in a benchmark.
    logs.configure("ERROR")
    url = os.environ.get("DATABASE_URL") or None
    for figura in bench.run(args.names, url=url, quick=args.quick):
        print(json.dumps(figura, ensure_ascii=False, default=str), flush=True)
    return 0


def _uuid_arg(text: str) -> Any:
    import uuid

    try:
        return uuid.UUID(text)
    except ValueError:
        raise errors.InvalidInput(f"not a UUID: {text!r}") from None


# --- operating D-2 (issue 8) -----------------------------------------------------------------


def _date_arg(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise errors.InvalidInput(f"not a date (YYYY-MM-DD): {text!r}") from None


def cmd_status(args: argparse.Namespace) -> int:
    from d2 import ops

    with db.connect(ambiente.url(), autocommit=True) as conn:
        dados = ops.status(conn)
    if args.json:
        _print_json(dados)
    else:
        print(ops.formatar_status(dados))
    return 0


def cmd_revisoes_list(args: argparse.Namespace) -> int:
    from d2 import ops

    with db.connect(ambiente.url(), autocommit=True) as conn:
        linhas = ops.listar_revisoes(conn, args.limit)
    if args.json:
        _print_json(linhas)
    else:
        print(ops.formatar_revisoes(linhas))
    return 0


def cmd_revisoes_reprocessar(args: argparse.Namespace) -> int:
    from d2 import logs, regeo

    logs.configure(args.log_level)
    with db.connect(ambiente.url(), autocommit=True) as conn:
        relatorio = regeo.reprocessar_revisoes(conn, config.load())
    _print_json(relatorio)
    return 0


def cmd_regeorreferenciar(args: argparse.Namespace) -> int:
    from d2 import logs, regeo

    logs.configure(args.log_level)
    uc = _uuid_arg(args.uc) if args.uc else None
    desde = _date_arg(args.desde) if args.desde else None
    if args.lote < 1:
        raise errors.InvalidInput("--lote must be at least 1")
    with db.connect(ambiente.url(), autocommit=True) as conn:
        relatorio = regeo.regeorreferenciar(
            conn, config.load(), uc=uc, desde=desde, dry_run=args.dry_run, lote=args.lote
        )
    if args.json:
        _print_json(relatorio)
    else:
        print(regeo.formatar_regeo(relatorio))
    return 0


def cmd_mapa(args: argparse.Namespace) -> int:
    from d2 import mapa

    with db.connect(ambiente.url(), autocommit=True) as conn:
        resumo = mapa.gerar_mapa(conn, Path(args.saida), limite=args.limit, tiles=args.tiles)
    print(
        f"{resumo['saida']}: {resumo['revisoes']} reviews, {resumo['dead_letters']} dead letters "
        f"(+{resumo['dead_letters_sem_coordenadas']} without coordinates), "
        f"{resumo['resolucoes']} resolutions, {resumo['poligonos']} polygons"
    )
    return 0


def cmd_import_osm(args: argparse.Namespace) -> int:
    from d2.importers import osm

    resumo = osm.importar_osm(ambiente.url(), Path(args.file))
    if args.json:
        _print_json(resumo.as_json())
    else:
        print(resumo.format_text())
    return 0


def _add_ops_commands(sub: Any) -> None:
    """Call from build_parser(): _add_ops_commands(sub) after the dlq commands."""
    p_status = sub.add_parser("status", help="one screen: cursor, outcomes, reviews, mirror")
    p_status.add_argument("--json", action="store_true")
    p_status.set_defaults(handler=cmd_status)

    p_rev = sub.add_parser("revisoes", help="the manual review queue (points in no polygon)")
    rev_sub = p_rev.add_subparsers(dest="revisoes_command", required=True, metavar="ACTION")
    p_rev_list = rev_sub.add_parser("list", help="pending reviews, oldest first")
    p_rev_list.add_argument("--limit", type=int, default=100)
    p_rev_list.add_argument("--json", action="store_true")
    p_rev_list.set_defaults(handler=cmd_revisoes_list)
    p_rev_re = rev_sub.add_parser(
        "reprocessar",
        help="resolve the queue against today's polygons; publishes what now resolves",
    )
    p_rev_re.add_argument("--log-level", default="WARNING")
    p_rev_re.set_defaults(handler=cmd_revisoes_reprocessar)

    p_regeo = sub.add_parser(
        "regeorreferenciar",
        help="recompute stored resolutions under today's polygons; publish the changes",
    )
    p_regeo.add_argument(
        "--uc", help="only resolutions of this UC (resolved there or in its chain)"
    )
    p_regeo.add_argument("--desde", help="only resolutions created on or after DATE (YYYY-MM-DD)")
    p_regeo.add_argument("--dry-run", action="store_true", help="print what would change, by UC")
    p_regeo.add_argument("--lote", type=int, default=5000, help="resolutions per transaction")
    p_regeo.add_argument("--json", action="store_true")
    p_regeo.add_argument("--log-level", default="WARNING")
    p_regeo.set_defaults(handler=cmd_regeorreferenciar)

    p_mapa = sub.add_parser("mapa", help="a self-contained HTML map of what needs a human")
    p_mapa.add_argument("--saida", required=True, metavar="FILE.html")
    p_mapa.add_argument(
        "--limit", type=int, default=5000, help="points of each kind (default 5000)"
    )
    p_mapa.add_argument(
        "--tiles", default=None, help="a folium tile layer, e.g. OpenStreetMap (needs internet)"
    )
    p_mapa.set_defaults(handler=cmd_mapa)

    p_osm = sub.add_parser(
        "import-osm", help="OSM admin_level=10 bairros (GeoJSON) where IBGE has none"
    )
    p_osm.add_argument(
        "file",
        help="GeoJSON from Overpass (osmtogeojson) or osmium export, optionally .gz/.bz2; "
        "at most D2_OSM_MAX_BYTES (default 1 GiB) once decompressed",
    )
    p_osm.add_argument("--json", action="store_true")
    p_osm.set_defaults(handler=cmd_import_osm)


# --- parser --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="d2",
        description=(
            "D-2 Georreferenciamento: resolves the civic unit (bairro, município, UF, região, "
            "Brasil) of each demanda.normalizada and publishes demanda.georreferenciada. "
            "Uses DATABASE_URL, or a private PostGIS cluster under ./.d2/ when it is unset."
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p_db = sub.add_parser("db", help="the embedded PostGIS cluster under ./.d2/")
    db_sub = p_db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_sub.add_parser("start", help="start (and create, migrate) it").set_defaults(
        handler=cmd_db_start
    )
    db_sub.add_parser("stop", help="stop it").set_defaults(handler=cmd_db_stop)
    p_status = db_sub.add_parser("status", help="is it running? (exit 3 when not)")
    p_status.add_argument("--json", action="store_true")
    p_status.set_defaults(handler=cmd_db_status)
    p_url = db_sub.add_parser("url", help="print the database URL d2 uses (password masked)")
    p_url.add_argument(
        "--show-password", action="store_true", help="print the password too, as it is"
    )
    p_url.set_defaults(handler=cmd_db_url)
    p_verify = db_sub.add_parser(
        "verify",
        help="are the migrations, functions and indexes in place, and no schema they"
        " resolve names through writable by other roles?",
    )
    p_verify.add_argument("--json", action="store_true")
    p_verify.set_defaults(handler=cmd_db_verify)

    p_migrate = sub.add_parser("migrate", help="apply the migrations (alembic)")
    p_migrate.add_argument("--revision", default="head", help="target revision (default head)")
    p_migrate.add_argument("--downgrade", metavar="REV", help="downgrade to REV ('base': all)")
    p_migrate.set_defaults(handler=cmd_migrate)

    p_resolve = sub.add_parser("resolve", help="resolve one point; prints JSON")
    p_resolve.add_argument("lat", help="latitude, -90..90")
    p_resolve.add_argument("lng", help="longitude, -180..180")
    p_resolve.set_defaults(handler=cmd_resolve)

    p_mirror = sub.add_parser("mirror", help="the PostGIS mirror of core.uc_polygons")
    mirror_sub = p_mirror.add_subparsers(dest="mirror_command", required=True, metavar="ACTION")
    mirror_sub.add_parser("rebuild", help="rebuild it whole from its source").set_defaults(
        handler=cmd_mirror_rebuild
    )
    p_sync = mirror_sub.add_parser(
        "sync",
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
        help="if another applier is at work, wait for it, then apply what is left: on "
        "return every change committed before the call is in the mirror (for scripts)",
    )
    p_sync.add_argument("--json", action="store_true")
    p_sync.set_defaults(handler=cmd_mirror_sync)
    from d2 import cli_replica

    cli_replica.add_commands(mirror_sub)  # the event-synced replica (spec Phase 2)
    p_import = sub.add_parser(
        "import-ibge",
        help="import IBGE meshes (país, regiões, UFs, municípios, bairros) into core.uc_polygons",
        description=(
            "Reads IBGE files by their official names from DIR (BR_Municipios_2025, BR_UF_2025, "
            "BR_Regioes_2025, BR_Pais_2025, BR_bairros_CD2022; 2022-2024 vintages and per-UF "
            "files too; .shp .zip .gpkg .geojson .geojson.gz) and/or explicit files; repairs "
            "invalid geometry, simplifies each layer as a coverage, and upserts in one "
            "transaction. A second run of the same files changes nothing."
        ),
    )
    p_import.add_argument("directory", nargs="?", metavar="DIR", help="folder with IBGE files")
    for camada, nivel in (
        ("municipios", 4),
        ("ufs", 5),
        ("regioes", 6),
        ("pais", 7),
        ("bairros", 2),
    ):
        p_import.add_argument(
            f"--{camada}", metavar="FILE", help=f"the {camada} file (nível {nivel}); wins over DIR"
        )
    p_import.add_argument(
        "--tolerancia",
        type=_tolerancia,
        metavar="DEGREES",
        help="simplification tolerance for every layer (default 0.001, bairros 0.0001; 0 = none)",
    )
    p_import.add_argument("--json", action="store_true", help="print the summary as JSON")
    p_import.add_argument("--no-progress", action="store_true", help="no progress bars")
    p_import.set_defaults(handler=cmd_import_ibge)

    p_sample = sub.add_parser(
        "sample",
        help="write the synthetic IBGE-shaped sample territory (GeoJSON files, and an OSM file"
        " of it for Nominatim)",
    )
    p_sample.add_argument("--saida", required=True, metavar="DIR", help="output folder")
    p_sample.set_defaults(handler=cmd_sample)

    p_worker = sub.add_parser(
        "worker",
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
        "--drain", action="store_true", help="process everything pending, then exit 0"
    )
    p_worker.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help=(
            "events per batch (default D2_BATCH_SIZE or 500); above 1 the next batch is"
            " read and resolved on a second connection while one is written;"
            " 1 = one event at a time, strictly in turn"
        ),
    )
    p_worker.add_argument("--log-level", default="INFO")
    p_worker.set_defaults(handler=cmd_worker)

    p_demo = sub.add_parser(
        "demo",
        help="load the sample territory, publish sample demands, run the worker, summarise",
    )
    p_demo.add_argument("--eventos", type=int, default=300, help="how many demands (default 300)")
    p_demo.add_argument("--json", action="store_true")
    p_demo.add_argument("--verbose", action="store_true", help="show the worker's JSON logs")
    p_demo.set_defaults(handler=cmd_demo)

    p_dlq = sub.add_parser("dlq", help="the dead letters: events the worker could not handle")
    dlq_sub = p_dlq.add_subparsers(dest="dlq_command", required=True, metavar="ACTION")
    p_list = dlq_sub.add_parser("list", help="list dead letters")
    p_list.add_argument(
        "--status",
        default="pendente",
        choices=["pendente", "reprocessado", "descartado", "todos"],
    )
    p_list.add_argument("--consumidor", default=None, help="only this consumer's (default: all)")
    p_list.add_argument("--limit", type=int, default=100)
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=cmd_dlq_list)
    p_retry = dlq_sub.add_parser("retry", help="run dead letters through the handler again")
    p_retry.add_argument("event_id", nargs="?", help="one event id")
    p_retry.add_argument("--all", action="store_true", help="every pending dead letter")
    p_retry.add_argument("--log-level", default="INFO")
    p_retry.set_defaults(handler=cmd_dlq_retry)
    _add_ops_commands(sub)
    from d2 import cli_geocoder, cli_territorio

    cli_territorio.add_commands(sub)
    cli_geocoder.add_commands(sub)  # textual addresses (issue 14)

    p_bench = sub.add_parser(
        "bench",
        help="performance figures, each with a baseline measured in the same run (JSON lines)",
        description=(
            "Performance figures, one JSON object per line: the figure, the baseline "
            "measured in the same run, their ratio. pip: points/s of the set-based "
            "resolver against plain ST_Contains and an in-process shapely STRtree, on the "
            "shared data and at the official mesh's density. drain: events/s of a worker "
            "draining a backlog, batch path against the per-event path, with the share of "
            "CPU busy meanwhile, and the machine's ceiling (two workers draining copies "
            "at once). memory: the worker's peak RSS. latency: commit to commit under a "
            "trickle, p50 and p99. import: the shared data from empty, and again unchanged. "
            "capture: a writer's bulk insert of the municipalities into core.uc_polygons "
            "with D-2 against the spec's table without it, and the mirror's staleness "
            "after a write (commit to version moved, worker running), p50 and p99. "
            "eventlog: on a cluster of its own with fsync on, 8 producers' commits/s on "
            "core.event_log with D-2 installed against a plain log; the gap run (skips, "
            "commit to delivery p50/p99); the delay a long write transaction causes. "
            "regeo: over 1,000,000 stored resolutions, the full re-georeferencing pass "
            "against one resolver call per row, and the follow-up after one município "
            "changes (rows examined against rows inside, seconds). "
            "geocode: addresses/s through the handler against the sample Nominatim, against "
            "one request at a time with no cache, the cache's effect, and GPS throughput "
            "with 10% address-only events (needs no shared data)."
        ),
    )
    p_bench.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="pip, drain, memory, latency, import, capture, eventlog, regeo, geocode "
        "(default: all)",
    )
    p_bench.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes)")
    p_bench.set_defaults(handler=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Negative coordinates look like options to argparse: `d2 resolve -23.5 -46.6`.
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_protect_negative_numbers(raw))
    handler: Handler = args.handler
    ambiente.url.cache_clear()  # one decision per command, also when main runs twice
    try:
        return handler(args)
    except errors.D2Error as exc:
        print(f"d2: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, errors.InvalidInput | errors.ConfigError) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `d2 ... | head`: the reader left; not an error of ours.
        sys.stderr.close()
        return 0


def _protect_negative_numbers(argv: list[str]) -> list[str]:
    asks_help = any(arg in ("-h", "--help") for arg in argv)
    if argv[:1] == ["resolve"] and "--" not in argv and not asks_help:
        return ["resolve", "--", *argv[1:]]
    return argv


if __name__ == "__main__":
    sys.exit(main())
