"""What a `d2` command loads before it runs (CONTRIBUTING.md, "Where things live"): the
modules that bring geopandas, numpy or shapely are imported inside their own command,
and the address path (the ladder, the gazetteer, rapidfuzz) only where an address is
read, so `d2 worker` starts without either (docs/notes/drain.md, "The worker's start").
Each check runs in a fresh interpreter: this one has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

# The libraries of the importers, the sample, the map and the migrations.
GEODADOS = {"geopandas", "pandas", "shapely", "numpy", "pyogrio", "pyproj", "folium",
            "sqlalchemy", "alembic", "nominatim_api"}  # fmt: skip
# The address path's own modules and the libraries only it uses.
CAMINHO_DE_ENDERECOS = {
    "d2.geocoder.address", "d2.geocoder.ladder", "d2.geocoder.ladder_rules",
    "d2.geocoder.ladder_steps", "d2.geocoder.parser", "d2.geocoder.fields",
    "d2.geocoder.complaint", "d2.geocoder.places", "d2.geocoder.places.gazetteer",
    "d2.geocoder.places.names", "d2.geocoder.places.lookup", "rapidfuzz",
}  # fmt: skip


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


def test_imports__the_worker_and_its_handler_load_no_address_path() -> None:
    carregados = _carregados("import d2.cli\nfrom d2.worker import loop, stages")
    assert carregados & CAMINHO_DE_ENDERECOS == set()


def test_imports__a_gps_demand_classified_loads_no_address_reader() -> None:
    evento = """
import uuid
from datetime import UTC, datetime
from d2 import config
from d2.eventlog import bus
from d2.handler import classification

def evento(payload):
    return bus.Evento(1, uuid.uuid4(), "demanda.normalizada", "1.2.0", "D-1b", None,
                      payload, datetime.now(UTC))

gps = {"lat": -27.0, "lng": -49.0}
plano = classification.classificar(
    evento({"demanda_id": str(uuid.uuid4()), "coordenadas_validadas": gps}), config.load()
)
assert plano.outcome is None and plano.lat == -27.0
"""
    assert "d2.geocoder.question" not in _carregados(evento)
    com_endereco = (
        evento
        + """
plano = classification.classificar(
    evento({"demanda_id": str(uuid.uuid4()), "entidades_extraidas": {"endereco": "Rua X, 10"}}),
    config.load(),
)
assert plano.outcome == classification.Outcome.GEOCODIFICACAO_PENDENTE, plano
"""
    )
    carregados = _carregados(com_endereco)
    assert "d2.geocoder.question" in carregados
    assert carregados & CAMINHO_DE_ENDERECOS == set()
