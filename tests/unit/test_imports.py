"""What a `d2` command loads before it runs (CONTRIBUTING.md, "Where things live"): the
modules that bring geopandas, numpy or shapely are imported inside their own command, so
`d2 worker` starts without them. Each check runs in a fresh interpreter: this one has
imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

# The libraries of the importers, the sample, the map and the migrations.
GEODADOS = {"geopandas", "pandas", "shapely", "numpy", "pyogrio", "pyproj", "folium",
            "sqlalchemy", "alembic", "nominatim_api"}  # fmt: skip


def _carregados(codigo: str) -> set[str]:
    """The modules a fresh interpreter holds after running codigo."""
    saida = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{codigo}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(json.loads(saida.splitlines()[-1]))


def test_imports__the_command_line_loads_no_geodata_library() -> None:
    carregados = _carregados("import d2.cli")
    assert {m.split(".")[0] for m in carregados} & GEODADOS == set()
