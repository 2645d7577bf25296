"""The package's floor plan (the README's "Layout"): the folders under d2/
are the layers; each module imports only from its own floor or below, there is no import
cycle (imports inside functions included: hiding one there does not make it go away),
only the command line knows about the embedded cluster, no package __init__
re-exports what it imported (no shims), and the address path is entered by its doors
only."""

from __future__ import annotations

import ast
from pathlib import Path

import d2

PACOTE = Path(d2.__file__).resolve().parent

# Top to bottom, as the README's "Layout" maps them. A module's floor is that of the
# longest package prefix naming it; the base is what sits directly in d2/.
ANDARES: list[tuple[str, tuple[str, ...]]] = [
    # the `d2` command, one module per command group, and the benchmarks (they run the
    # worker and start throw-away clusters, as commands do)
    ("cli", ("d2.cli", "d2.bench")),
    # what the command modules share: the parser, the renderer, the URL decided once
    ("cli.common", ("d2.cli.common", "d2.cli.database_url")),
    # the private cluster: only the command line starts it
    ("embedded", ("d2.embedded",)),
    # the worker process: loop, batch reading, leadership, geocoding stage, metrics
    ("worker", ("d2.worker",)),
    # status, the dead-letter and review queues, re-georeferencing, the map
    ("ops", ("d2.ops",)),
    # classify, decide and conclude a batch of demands; outputs, outcome logs, geo cache
    ("handler", ("d2.handler",)),
    # the address path behind its door (question, address.AddressPath, answer): the
    # address text (parser, fields, complaint, references, vocabulary), places/, the ladder;
    # nominatim/: the client and Nominatim's import
    ("geocoder", ("d2.geocoder",)),
    # IBGE, OSM and the sample territory into core.uc_polygons (they apply the mirror)
    ("importers", ("d2.importers",)),
    # the resolver, the mirror, the replica, citizen drawings
    ("territorio", ("d2.territorio",)),
    # core.event_log: publish, read behind the fence, consumers, dead letters, Registry
    ("eventlog", ("d2.eventlog",)),
    ("base", ("d2",)),
]


# The address path's doors, the only modules of d2/geocoder/ imported from outside it:
# the question a demand asks (question.Endereco), the door (address.AddressPath) and its
# answer (answer.Geocoding); and the Nominatim client's, which the worker picks and hands
# to the door and `d2 status` names (nominatim.client: Geocoder and the choice;
# nominatim.search: what it is asked and answers), and the import the commands run
# (nominatim.importer). Behind them the reading (the address text, places/, the ladder)
# changes without anyone above knowing.
PORTAS_DO_GEOCODER = {
    "d2.geocoder.question",
    "d2.geocoder.address",
    "d2.geocoder.answer",
    "d2.geocoder.nominatim.client",
    "d2.geocoder.nominatim.search",
    "d2.geocoder.nominatim.importer",
}
# Those the handler and the worker's geocoding stage use: the address path's own door.
PORTA_DO_ENDERECO = {"d2.geocoder.question", "d2.geocoder.address", "d2.geocoder.answer"}
# The one module outside that reads behind the doors: the benchmark that times the place
# reading alone (d2.geocoder.places.lookup.contextos, before any geocoder is asked), which
# the door cannot show apart from the ladder.
LEEM_POR_DENTRO = {"d2.bench.geocode_reading"}


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
    melhor: tuple[int, int] | None = None  # (prefix length, floor)
    for indice, (_, prefixos) in enumerate(ANDARES):
        for prefixo in prefixos:
            if modulo == prefixo or modulo.startswith(prefixo + "."):
                base_direta = prefixo == "d2" and modulo.count(".") > 1
                if not base_direta and (melhor is None or len(prefixo) > melhor[0]):
                    melhor = (len(prefixo), indice)
    if melhor is None:
        raise AssertionError(f"{modulo} has no floor in tests/unit/test_layers.py: place it")
    return melhor[1]


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
    assert [m for m in quem if _andar(m) > 1] == []


def test_only_commands_import_the_command_line() -> None:
    """The benchmarks share the commands' floor (they start clusters and run the worker
    as commands do) but sit below them: `d2 bench` imports them, never the reverse, so
    nothing outside d2/cli/ imports from it (its URL decision included)."""
    quem = sorted(
        f"{modulo} imports {alvo}"
        for modulo, alvos in _grafo().items()
        if not modulo.startswith("d2.cli")
        for alvo in alvos
        if alvo == "d2.cli" or alvo.startswith("d2.cli.")
    )
    assert quem == []


def test_every_folder_is_one_floor() -> None:
    """The tree shows the plan: each package under d2/ holds one floor (cli's shared
    modules aside, named in ANDARES)."""
    for pasta in sorted(p for p in PACOTE.iterdir() if (p / "__init__.py").exists()):
        andares = {
            _andar(m)
            for m in _modulos()
            if m == f"d2.{pasta.name}" or m.startswith(f"d2.{pasta.name}.")
        }
        if pasta.name != "cli":
            assert len(andares) == 1, (pasta.name, andares)


def test_no_package_init_re_exports() -> None:
    """No shims: whatever a package __init__ imports from d2 it uses itself, so callers
    import a name from the module that defines it."""
    for modulo, caminho in sorted(_modulos().items()):
        if caminho.name != "__init__.py":
            continue
        arvore = ast.parse(caminho.read_text(encoding="utf-8"))
        importados: set[str] = set()
        for no in arvore.body:
            if isinstance(no, ast.ImportFrom) and (no.module or "").split(".")[0] == "d2":
                importados |= {n.asname or n.name for n in no.names}
            elif isinstance(no, ast.Import):
                importados |= {
                    (n.asname or n.name).split(".")[0] for n in no.names if n.name.startswith("d2")
                }
        usados = {n.id for n in ast.walk(arvore) if isinstance(n, ast.Name)}
        assert importados <= usados, f"{modulo} re-exports {sorted(importados - usados)}"


def test_only_db_handles_psycopgs_errors() -> None:
    """d2/db.py maps psycopg's errors to d2.errors; everything above catches those."""
    nomes = {"Error", "errors", "OperationalError", "ProgrammingError", "InterfaceError"}
    quem = sorted(
        modulo
        for modulo, caminho in _modulos().items()
        if modulo != "d2.db"
        and any(
            isinstance(no, ast.Attribute)
            and isinstance(no.value, ast.Name)
            and no.value.id == "psycopg"
            and no.attr in nomes
            for no in ast.walk(ast.parse(caminho.read_text(encoding="utf-8")))
        )
    )
    assert quem == []


def test_every_module_reads_in_one_sitting() -> None:
    """A module past 400 lines holds more than one idea: split it by what it does (the
    address corpus's generator became d2/bench/corpus/, the worker's health left its loop)."""
    longos = {
        modulo: linhas
        for modulo, caminho in _modulos().items()
        if (linhas := len(caminho.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert longos == {}


def test_the_geocoder_is_entered_by_its_doors() -> None:
    """Nothing outside d2/geocoder/ imports its reading (fields, places, the ladder): the
    handler and the geocoding stage go through the address path's door, the worker and
    the commands through the Nominatim client's; only the benchmark of the place reading
    reads behind them."""
    por_dentro = sorted(
        f"{modulo} imports {alvo}"
        for modulo, alvos in _grafo().items()
        if not modulo.startswith("d2.geocoder") and modulo not in LEEM_POR_DENTRO
        for alvo in alvos
        if alvo.startswith("d2.geocoder.") and alvo not in PORTAS_DO_GEOCODER
    )
    assert por_dentro == []
    pelo_nominatim = sorted(
        f"{modulo} imports {alvo}"
        for modulo, alvos in _grafo().items()
        if modulo.startswith("d2.handler") or modulo == "d2.worker.geocoding"
        for alvo in alvos
        if alvo.startswith("d2.geocoder") and alvo not in PORTA_DO_ENDERECO
    )
    assert pelo_nominatim == []
    assert all(m in _modulos() for m in PORTAS_DO_GEOCODER | LEEM_POR_DENTRO)
