"""The territory's geometry: `d2 resolve`, `d2 mirror …` (the PostGIS mirror and the
event-synced replica of spec Phase 2), `d2 import-ibge`, `d2 import-osm`, `d2 sample`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from d2 import ambiente, config, db, errors, geo, mirror, replica
from d2.cli.saida import comando, emitir, flag, grupo, tolerancia

CAMADAS_IBGE = (("municipios", 4), ("ufs", 5), ("regioes", 6), ("pais", 7), ("bairros", 2))


def cmd_resolve(args: argparse.Namespace) -> int:
    lat = geo.parse_cli_coordinate(args.lat, "lat", 90)
    lng = geo.parse_cli_coordinate(args.lng, "lng", 180)
    with db.connect(ambiente.url()) as conn:
        achado = geo.resolver(conn, lat, lng)
        if achado is None:
            emitir(args, {"lat": lat, "lng": lng, "resolvido": False})
            return 0
        nomes = {
            str(row["unidade_civica_id"]): row
            for row in conn.execute(db.q("uc_names"), {"ids": list(achado.cadeia_ucs)})
        }
    resultado: dict[str, Any] = {
        "lat": geo.arredondar(lat),
        "lng": geo.arredondar(lng),
        "resolvido": True,
    }
    resultado |= achado.as_json()
    resultado["cadeia"] = [
        {"unidade_civica_id": uc, "nome": nomes[uc]["nome"], "nivel": nomes[uc]["nivel"]}
        for uc in achado.cadeia_ucs
        if uc in nomes
    ]
    emitir(args, resultado)
    return 0


def cmd_mirror_rebuild(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
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
    with db.connect(ambiente.url(), autocommit=True) as conn:
        feito = mirror.aplicar(conn, esperar=args.wait)
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


def cmd_mirror_fonte(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        if args.fonte is None:
            resposta: dict[str, Any] = {"fonte": replica.fonte(conn)}
        else:
            resposta = replica.definir_fonte(conn, config.load(), args.fonte)
    emitir(args, resposta, _texto_fonte)
    return 0


def cmd_mirror_publicar_estado(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn, conn.transaction():
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


def cmd_import_ibge(args: argparse.Namespace) -> int:
    from d2.importers import ibge  # geopandas: ~0.5 s the other commands need not pay

    arquivos = {c: Path(getattr(args, c)) for c, _ in CAMADAS_IBGE if getattr(args, c)}
    if args.directory is None and not arquivos:
        raise errors.InvalidInput("give a directory of IBGE files or --municipios/--ufs/... FILE")
    resumo = ibge.run_import(
        ambiente.url(),
        directory=Path(args.directory) if args.directory else None,
        files=arquivos or None,
        tolerancia=args.tolerance,
        progress=not args.no_progress and not args.json and sys.stderr.isatty(),
    )
    emitir(args, resumo.as_json(), lambda _: resumo.format_text())
    return 0


def cmd_import_osm(args: argparse.Namespace) -> int:
    from d2.importers import osm  # geopandas, as above

    resumo = osm.importar_osm(ambiente.url(), Path(args.file))
    emitir(args, resumo.as_json(), lambda _: resumo.format_text())
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from d2.importers import sample, sample_osm  # geopandas, as above

    caminhos = [*sample.write_sample(Path(args.output))]
    caminhos.append(sample_osm.write_osm(Path(args.output) / "amostra.osm"))
    emitir(args, [str(c) for c in caminhos], lambda cs: "\n".join(cs))
    return 0


def registrar(sub: Any) -> None:
    p_resolve = comando(sub, "resolve", cmd_resolve, help="resolve one point; prints JSON")
    p_resolve.add_argument("lat", help="latitude, -90..90")
    p_resolve.add_argument("lng", help="longitude, -180..180")

    espelho = grupo(sub, "mirror", help="the PostGIS mirror of core.uc_polygons")
    comando(
        espelho,
        "rebuild",
        cmd_mirror_rebuild,
        json_flag=True,
        help="rebuild it whole from its source",
    )
    p_sync = comando(
        espelho,
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
        help="if another applier is at work, wait for it, then apply what is left: on "
        "return every change committed before the call is in the mirror (for scripts)",
    )
    p_fonte = comando(
        espelho,
        "fonte",
        cmd_mirror_fonte,
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
        espelho,
        "publicar-estado",
        cmd_mirror_publicar_estado,
        json_flag=True,
        help="publish core.uc_polygons as uc.poligono_* events (what changed since last time)",
        description=(
            "For a log that predates the importers' events: one uc.poligono_adicionado per "
            "row never published, uc.poligono_atualizado for a row changed since, "
            "uc.poligono_removido for a published row now gone. Idempotent per row version: "
            "a second run publishes nothing. The importers do the same in their transaction."
        ),
    )

    p_import = comando(
        sub,
        "import-ibge",
        cmd_import_ibge,
        json_flag=True,
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
    for camada, nivel in CAMADAS_IBGE:
        p_import.add_argument(
            f"--{camada}", metavar="FILE", help=f"the {camada} file (nível {nivel}); wins over DIR"
        )
    flag(
        p_import,
        "--tolerance",
        "--tolerancia",
        type=tolerancia,
        metavar="DEGREES",
        help="simplification tolerance for every layer (default 0.001, bairros 0.0001; 0 = none)",
    )
    p_import.add_argument("--no-progress", action="store_true", help="no progress bars")

    p_osm = comando(
        sub,
        "import-osm",
        cmd_import_osm,
        json_flag=True,
        help="OSM admin_level=10 bairros (GeoJSON) where IBGE has none",
    )
    p_osm.add_argument(
        "file",
        help="GeoJSON from Overpass (osmtogeojson) or osmium export, optionally .gz/.bz2; "
        "at most D2_OSM_MAX_BYTES (default 1 GiB) once decompressed",
    )

    p_sample = comando(
        sub,
        "sample",
        cmd_sample,
        json_flag=True,
        help="write the synthetic IBGE-shaped sample territory (GeoJSON files, and an OSM file"
        " of it for Nominatim)",
    )
    flag(p_sample, "--output", "--saida", required=True, metavar="DIR", help="output folder")
