"""The dependency floors stay past known advisories, and requirements.lock (what CI and
scripts/setup.sh install) pins every dependency of pyproject.toml within its range."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

RAIZ = Path(__file__).resolve().parents[2]
# Advisories: tqdm CVE-2024-34062 (fixed in 4.66.3); geopandas (fixed in 1.1.2).
PISOS = {"tqdm": Version("4.66.3"), "geopandas": Version("1.1.2")}


def _projeto() -> list[Requirement]:
    dados = tomllib.loads((RAIZ / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    textos = dados["dependencies"] + dados["optional-dependencies"]["dev"]
    return [Requirement(t) for t in textos]


def _lock() -> dict[str, Version]:
    fixas: dict[str, Version] = {}
    for linha in (RAIZ / "requirements.lock").read_text(encoding="utf-8").splitlines():
        linha = linha.split("#", 1)[0].strip()
        if linha:
            nome, versao = linha.split("==")
            fixas[canonicalize_name(nome)] = Version(versao)
    return fixas


def test_floors_exclude_the_vulnerable_versions() -> None:
    for req in _projeto():
        if req.name in PISOS:
            piso = PISOS[req.name]
            assert not req.specifier.contains(Version(f"{piso.major}.{piso.minor}.0")), req
            assert req.specifier.contains(piso), req


def test_lock_pins_every_dependency_within_its_range() -> None:
    fixas = _lock()
    for req in _projeto():
        nome = canonicalize_name(req.name)
        assert nome in fixas, f"{req.name} missing from requirements.lock: run scripts/lock.sh"
        assert req.specifier.contains(fixas[nome], prereleases=True), (req, fixas[nome])
    for nome, piso in PISOS.items():
        assert fixas[nome] >= piso
