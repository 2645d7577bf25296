"""The package's floor plan (issue 18 item 4; shared/DESIGN.md "A floor plan"): each
module imports only from its own floor or below, there is no import cycle (imports
inside functions included: hiding one there does not make it go away), and only the
command line knows about the embedded cluster — everything else is given a URL.

The floors, top to bottom, as the code stands (the DESIGN's plan is a suggestion; where
this differs it says why):"""

from __future__ import annotations

import ast
from pathlib import Path

import d2

PACOTE = Path(d2.__file__).resolve().parent

ANDARES: list[tuple[str, set[str]]] = [
    # parses arguments, decides the database URL once (d2.ambiente), renders, exit codes
    ("cli", {"d2.cli", "d2.cli.__main__", "d2.cli.database", "d2.cli.geocoder",
             "d2.cli.malha", "d2.cli.operar", "d2.cli.territorio", "d2.cli.tools",
             "d2.demo", "d2.ambiente",
             # the benchmarks: they run the worker, start throw-away clusters
             "d2.bench", "d2.bench.captura", "d2.bench.common", "d2.bench.data",
             "d2.bench.drain", "d2.bench.event_log", "d2.bench.geocode",
             "d2.bench.notify_latency", "d2.bench.pip", "d2.bench.regeo"}),
    # what the commands share (parser, renderer, argument types): below the areas, so
    # an area module never imports another
    ("cli.saida", {"d2.cli.saida"}),
    # the private cluster: only the command line starts it
    ("embedded", {"d2.embedded"}),
    # loops and stages on threads of their own (the geocoding stage runs the handler's
    # plans, so it stands above service; the Nominatim import empties that stage's cache)
    ("worker", {"d2.worker", "d2.leitura", "d2.lideranca", "d2.geocoder.estagio",
                "d2.geocoder.importacao"}),
    # operations that run the handler or read its outcomes (dead-letter retry, review
    # reprocessing, re-georeferencing, map, metrics)
    ("ops", {"d2.ops", "d2.regeo", "d2.mapa", "d2.metrics"}),
    ("service", {"d2.service", "d2.classificacao", "d2.saidas", "d2.outcome_logs"}),
    ("domain", {"d2.territorio", "d2.replica", "d2.mirror", "d2.verify",
                "d2.geocoder.inferencia", "d2.geocoder.nominatim", "d2.geocoder.texto",
                "d2.importers.ibge", "d2.importers.ibge_read", "d2.importers.ibge_resumo",
                "d2.importers.osm", "d2.importers.sample", "d2.importers.sample_osm"}),
    ("infra", {"d2.bus", "d2.wire", "d2.dead_letters", "d2.consumidor", "d2.db",
               "d2.migrations", "d2.geo", "d2.cache", "d2.registry"}),
    ("base", {"d2.config", "d2.errors", "d2.logs", "d2.footprint",
              "d2", "d2.geocoder", "d2.importers"}),
]  # fmt: skip


def _modulos() -> dict[str, Path]:
    achados = {}
    for caminho in PACOTE.rglob("*.py"):
        partes = list(caminho.relative_to(PACOTE.parent).with_suffix("").parts)
        if partes[-1] == "__init__":
            partes = partes[:-1]
        achados[".".join(partes)] = caminho
    return achados


def _importa(modulo: str, caminho: Path, modulos: dict[str, Path]) -> set[str]:
    alvos: set[str] = set()
    for no in ast.walk(ast.parse(caminho.read_text(encoding="utf-8"))):
        if isinstance(no, ast.ImportFrom) and no.module and no.level == 0:
            if no.module == "d2" or no.module.startswith("d2."):
                for nome in no.names:
                    candidato = f"{no.module}.{nome.name}"
                    alvos.add(candidato if candidato in modulos else no.module)
        elif isinstance(no, ast.Import):
            alvos.update(n.name for n in no.names if n.name.split(".")[0] == "d2")
    alvos.discard(modulo)
    return alvos


def _grafo() -> dict[str, set[str]]:
    modulos = _modulos()
    return {m: _importa(m, p, modulos) for m, p in modulos.items()}


def _andar(modulo: str) -> int:
    for indice, (_, membros) in enumerate(ANDARES):
        if modulo in membros:
            return indice
    raise AssertionError(f"{modulo} has no floor in tests/unit/test_camadas.py: place it")


def test_every_module_has_a_floor() -> None:
    for modulo in _grafo():
        _andar(modulo)


def test_nothing_imports_upward() -> None:
    subidas = [
        f"{modulo} ({ANDARES[_andar(modulo)][0]}) imports {alvo} ({ANDARES[_andar(alvo)][0]})"
        for modulo, alvos in sorted(_grafo().items())
        for alvo in sorted(alvos)
        if _andar(alvo) < _andar(modulo)
    ]
    assert subidas == []


def test_no_import_cycle() -> None:
    grafo = _grafo()
    visitando: list[str] = []
    feitos: set[str] = set()
    ciclos: list[list[str]] = []

    def visitar(modulo: str) -> None:
        visitando.append(modulo)
        for alvo in sorted(grafo.get(modulo, ())):
            if alvo in visitando:
                ciclos.append([*visitando[visitando.index(alvo) :], alvo])
            elif alvo not in feitos:
                visitar(alvo)
        visitando.pop()
        feitos.add(modulo)

    for modulo in sorted(grafo):
        if modulo not in feitos:
            visitar(modulo)
    assert ciclos == []


def test_only_the_command_line_knows_the_embedded_cluster() -> None:
    quem = sorted(m for m, alvos in _grafo().items() if "d2.embedded" in alvos)
    assert set(quem) <= ANDARES[0][1], quem
