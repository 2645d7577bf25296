"""`d2 import-ibge`, `d2 import-osm`, `d2 sample`: territory into core.uc_polygons, and the
synthetic sample territory. geopandas is imported inside each command (~0.5 s the other
commands need not pay)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from d2 import errors
from d2.cli import database_url
from d2.cli.common import comando, emitir, flag, tolerancia

CAMADAS_IBGE = (("municipios", 4), ("ufs", 5), ("regioes", 6), ("pais", 7), ("bairros", 2))


def cmd_import_ibge(args: argparse.Namespace) -> int:
    from d2.importers import ibge  # geopandas: ~0.5 s the other commands need not pay

    arquivos = {c: Path(getattr(args, c)) for c, _ in CAMADAS_IBGE if getattr(args, c)}
    if args.directory is None and not arquivos:
        raise errors.InvalidInput("give a directory of IBGE files or --municipios/--ufs/... FILE")
    resumo = ibge.run_import(
        database_url.url(),
        directory=Path(args.directory) if args.directory else None,
        files=arquivos or None,
        tolerancia=args.tolerance,
        progress=not args.no_progress and not args.json and sys.stderr.isatty(),
    )
    emitir(args, resumo.as_json(), lambda _: resumo.format_text())
    return 0


def cmd_import_osm(args: argparse.Namespace) -> int:
    from d2.importers import osm  # geopandas, as above

    resumo = osm.importar_osm(database_url.url(), Path(args.file))
    emitir(args, resumo.as_json(), lambda _: resumo.format_text())
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from d2.importers import sample, sample_osm  # geopandas, as above

    caminhos = [*sample.write_sample(Path(args.output))]
    caminhos.append(sample_osm.write_osm(Path(args.output) / "amostra.osm"))
    emitir(args, [str(c) for c in caminhos], lambda cs: "\n".join(cs))
    return 0


def registrar(sub: Any) -> None:
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
