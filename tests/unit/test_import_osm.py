"""`d2 import-osm`'s checks before the database: bad files and compression bombs refused,
and the OSM id read from every exporter's form (the import itself runs in
tests/integration)."""

from __future__ import annotations

import bz2
import gzip
import json
import resource
import zlib
from pathlib import Path
from typing import Any

import pytest

from d2 import errors
from d2.importers import osm


def test_importar_osm__bad_files_fail_before_the_database(tmp_path: Path) -> None:
    with pytest.raises(errors.ImportFailed, match="not found"):
        osm.importar_osm("postgresql:///nowhere", tmp_path / "missing.geojson")
    ruim = tmp_path / "ruim.geojson"
    ruim.write_text("{not json", encoding="utf-8")
    with pytest.raises(errors.ImportFailed, match="not readable"):
        osm.importar_osm("postgresql:///nowhere", ruim)
    feature = tmp_path / "f.json"
    feature.write_text(json.dumps({"type": "Feature"}), encoding="utf-8")
    with pytest.raises(errors.ImportFailed, match="FeatureCollection"):
        osm.importar_osm("postgresql:///nowhere", feature)


@pytest.mark.parametrize(
    ("feature_", "props", "esperado"),
    [
        ({"id": "relation/1"}, {}, "relation/1"),
        ({}, {"@id": "way/2"}, "way/2"),
        ({}, {"@id": 3, "@type": "relation"}, "relation/3"),
        ({}, {"osm_id": "r4"}, "relation/4"),
        ({}, {"id": "w5"}, "way/5"),
        ({}, {"osm_id": 6, "osm_type": "way"}, "way/6"),
        ({}, {"osm_id": -7}, "-7"),
        ({}, {}, None),
    ],
)
def test_osm_id__every_exporter_form(
    feature_: dict[str, Any], props: dict[str, Any], esperado: str | None
) -> None:
    assert osm.osm_id(feature_, props) == esperado


def _bomba(destino: Path, compressor: Any, total: int) -> Path:
    """`total` bytes of zeros, compressed: a small file that decompresses to a huge one."""
    bloco = bytes(16 << 20)
    with open(destino, "wb") as fh:
        for _ in range(total // len(bloco)):
            fh.write(compressor.compress(bloco))
        fh.write(compressor.flush())
    return destino


@pytest.mark.parametrize(
    ("nome", "compressor", "total"),
    [
        ("bomba.geojson.gz", lambda: zlib.compressobj(9, zlib.DEFLATED, 31), 1 << 30),
        ("bomba.geojson.bz2", lambda: bz2.BZ2Compressor(9), 256 << 20),
    ],
)
def test_importar_osm__a_compression_bomb_is_refused_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nome: str, compressor: Any, total: int
) -> None:
    bomba = _bomba(tmp_path / nome, compressor(), total)
    assert bomba.stat().st_size < total // 200  # a bomb: it expands hundreds of times
    monkeypatch.setenv("D2_OSM_MAX_BYTES", str(4 << 20))
    # Peak memory of this process grows by about the cap, not by the bomb (1 GiB / 256 MiB).
    antes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(errors.ImportFailed, match=r"larger than 4194304 bytes .*D2_OSM_MAX_BYTES"):
        osm.importar_osm("postgresql:///nowhere", bomba)
    depois = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (depois - antes) * 1024 < 64 << 20


def test_importar_osm__the_cap_counts_decompressed_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vazio = json.dumps({"type": "FeatureCollection", "features": []}).encode()
    arquivo = tmp_path / "vazio.geojson.gz"
    arquivo.write_bytes(gzip.compress(vazio))
    assert osm.importar_osm("postgresql:///nowhere", arquivo, max_bytes=len(vazio)).read == 0
    with pytest.raises(errors.ImportFailed, match="larger than"):
        osm.importar_osm("postgresql:///nowhere", arquivo, max_bytes=len(vazio) - 1)
    monkeypatch.setenv("D2_OSM_MAX_BYTES", "0")
    with pytest.raises(errors.ConfigError, match="D2_OSM_MAX_BYTES"):
        osm.importar_osm("postgresql:///nowhere", arquivo)
