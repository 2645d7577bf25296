"""The dependency floors stay past known advisories, and requirements.lock (what CI and
scripts/setup.sh install) pins every dependency of pyproject.toml within its range."""

from __future__ import annotations

import re
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


def _entradas() -> dict[str, list[str]]:
    """Each pin of requirements.lock ("name==version") with its options (the --hash=...),
    continuation lines joined."""
    texto = (RAIZ / "requirements.lock").read_text(encoding="utf-8")
    entradas: dict[str, list[str]] = {}
    for linha in texto.replace("\\\n", " ").splitlines():
        partes = linha.split("#", 1)[0].split() if not linha.lstrip().startswith("#") else []
        if partes:
            entradas[partes[0]] = partes[1:]
    return entradas


def _lock() -> dict[str, Version]:
    fixas: dict[str, Version] = {}
    for pino in _entradas():
        nome, versao = pino.split("==")
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


def test_lock_pins_every_package_by_hash() -> None:
    """CI, scripts/setup.sh and the Dockerfile install with --require-hashes: a file whose
    sha256 is not the lock's (a package swapped on the index) is refused."""
    entradas = _entradas()
    assert len(entradas) == len(_lock()) > 0
    for pino, opcoes in entradas.items():
        assert opcoes, f"{pino} has no --hash in requirements.lock: run scripts/lock.sh"
        for opcao in opcoes:
            assert re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", opcao), (pino, opcao)
    assert "--require-hashes -r requirements.lock" in (RAIZ / "scripts/setup.sh").read_text()
