"""One name per concept (CONTRIBUTING.md, "Names"; docs/glossary.md): the spec's nouns
stay Portuguese, generic technical words are English. This holds every module, test,
doc and script file name and every named query to that rule, as test_cli_names does for
commands and flags: a name made of a word not listed here fails until the word is added
(English, or one of the spec's nouns) or the name is changed.

The database's own object names (sql/functions, sql/views, tables) are interfaces fixed
by the migrations and by the spec; they are not renamed, and a query named after the
function it calls may carry that function's name."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from d2 import db

RAIZ = Path(__file__).resolve().parents[2]

# The spec's nouns (and the Brazilian place words it uses), kept in Portuguese.
SUBSTANTIVOS = {
    "bairro", "bairros", "brasil", "centro", "cep", "comunitario", "demanda", "eventos",
    "municipio", "municipios", "pais", "poligonos", "processados", "regeorreferenciar",
    "resolucoes", "revisoes", "territorio", "uc", "ucs", "ufs",
    # A name's search form, the spec's column nome_busca (§2.6): d2/nome_busca.py.
    "nome", "busca",
    # An operator's actions on a revisão: answer it at a unit, or close it with none.
    "atribuir", "descartar",
}  # fmt: skip

# Generic technical words (and the abbreviations the field uses: regeo for
# re-georeferencing, dlq for the dead-letter queue, ibge, osm, pip for point-in-polygon).
INGLES = {
    "acceptance", "address", "advance", "adversarial", "alembic", "applied", "apply", "areas",
    "attacks", "bands", "batch", "bench", "border", "budgets", "build", "bus", "by", "cache",
    "capture", "catalog", "chain", "changelog", "chaos", "check", "checks",
    "classification",
    "classify", "clear", "cli", "cluster", "codigo", "commands", "common", "config",
    "conflicts", "conftest", "consumer", "contains", "contributing", "copy", "corpus", "count",
    "counts", "create", "current", "cursor", "d2", "data", "database", "db", "dead", "decide",
    "delete", "demo", "densify", "dependencies", "design", "discards", "districts", "dlq",
    "docker", "docs", "download", "drain", "drawings", "drop", "due", "embedded", "errors",
    "event", "eventlog", "events", "example", "exists", "expand", "failures", "fast", "fence",
    "fields", "fix", "fixtures", "footprint", "for", "freshness", "fullest", "gaps", "gauges",
    "gc", "geocode", "geocoder", "geocoding", "geometries", "get", "glossary", "gone",
    "handler", "head", "health", "held", "history", "holder", "holders", "html", "http", "huge",
    "ibge", "id", "identify", "ids", "ignored", "import", "importer", "importers", "imports",
    "in", "index", "inference", "init", "insert", "integration", "intervals", "invariants",
    "ladder", "lag", "last", "layers", "leader", "leadership", "letters", "level",
    "link", "list", "localities", "lock", "log", "logs", "lookup", "loop", "main", "many",
    "map", "mark", "match", "max", "method", "metrics", "migrations", "mirror", "monolith",
    "move", "multi", "naive", "names", "new", "next", "nominatim", "now", "of", "old",
    "on", "one", "open", "ops", "orphans", "osm", "others", "outcome", "outputs", "overall",
    "page", "parent", "parents", "park", "passed", "path", "payload", "pending", "performance",
    "perimeter", "personal", "pieces", "pip", "places", "plans", "point", "points", "postpone",
    "precompute", "prisma", "privileges", "processes", "producer", "producers", "publish",
    "quality", "queries", "query", "queue", "read", "reading", "readme", "rebuild", "record",
    "references", "regeo", "registry", "reliability", "removals", "remove", "removed",
    "repeatable",
    "replica", "requeue", "resolve", "resolved", "resolver", "results", "resume", "retry",
    "role", "rounding", "row", "rules", "sample", "schema", "schemas", "scripts", "sealed",
    "search", "security", "seed", "sequence", "session", "set", "settings", "setup", "shared",
    "show", "shrink", "since", "size", "skip", "source", "split", "sql", "staging",
    "state",
    "stats", "status", "steps", "stop", "store", "street", "submitted", "summary", "support",
    "surface", "synthetic", "table", "terminal", "test", "tests", "text", "timeouts", "to",
    "total", "try", "type", "unit", "unlinked", "unsubdivided", "upsert", "upstream",
    "url", "uuid", "verify", "vocabulary", "version", "versions", "views", "web", "wire", "worker",
    "writable",
    # The address path with no Nominatim configured.
    "without",
    # The resolver's answers beside the in-process peer's (d2 bench pip).
    "answers",
    # The address path's question and answer, beside its door (d2/geocoder/).
    "question", "answer",
    # The address parser, and the grammar of a complaint around an address.
    "parser", "complaint",
    # The place reading (d2/geocoder/places/): the round's lookup, each name's
    # interpretation, the decision; Nominatim's client, in process or remote.
    "interpretation", "decision", "client", "remote",
    # The bounded LRU cache (d2/lru.py) and the handler's geo cache (d2/handler/geo_cache.py).
    "lru", "geo",
    # The locks and the sessions holding them.
    "locks", "statement", "timeout", "transaction",
    # The address corpus's generator and its categories (d2/bench/corpus/), and the run of
    # `d2 bench geocode-quality` beside the table that judges it.
    "categories", "generator", "run",
    # The national address corpus, drawn from CEP Aberto in every UF.
    "national",
    # The corpora of what users write: the citizen corpus (a seen and an unseen half),
    # its texts that name no place, read beside a previous commit's worker.
    "citizen", "seen", "unseen", "no", "place", "corpora", "previous",
    # Where a place is read: a form's labels, the words of the language (the lexicon),
    # and a name's position in its segment.
    "labels", "lexicon", "position",
    # The handler's steps 5-7, written apart from its decisions (d2/handler/conclusion.py).
    "conclusion",
    # Nominatim in process (d2/geocoder/nominatim/local.py).
    "local",
    # D-2 on a replicated PostgreSQL: a primary, its standbys, a failover between them.
    "failover", "replication", "connection", "lost",
    # The names of places and streets an address is read against (d2/geocoder/places/gazetteer.py).
    "gazetteer",
    # The worker's stage that runs every geometry step: drawings, replica, mirror, follow-up.
    "geometry",
    # The stages beside the worker's demand loop (d2/worker/stages.py).
    "stages",
    # d2 bench process: this checkout's worker as a process beside another commit's.
    "process", "processed",
    # What the worker does before its first batch (tests/integration/test_worker_start.py).
    "start",
    # The names test for Python identifiers (tests/unit/test_identifier_names.py).
    "identifier",
    # A hostile text of one-word town names (bench_one_word_municipio_names).
    "word",
    # The near rule: a point in no polygon answered at the one município near it; the
    # mesh's drawing error it must cover (d2/bench/mesh_error.py).
    "near", "mesh", "error",
    # The reviews closed without a polygon, and the coast the benchmark draws points off.
    "closed", "coast",
    # What installs Debian's packages, waiting for another apt (scripts/apt_install.sh).
    "apt", "install",
    # The git hook that runs scripts/check.sh before a commit (scripts/install-hooks.sh).
    "hooks",
    # The engineering notes (docs/notes/): how the figures were reached.
    "notes", "throughput",
    # The threat model (docs/reliability.md, section 6) and its evidence.
    "threats",
}  # fmt: skip

PALAVRAS = SUBSTANTIVOS | INGLES


def _fora(nome: str) -> set[str]:
    return {p for p in re.split(r"[_\-.]", nome.lower()) if p and not p.isdigit()} - PALAVRAS


def _arquivos() -> list[str]:
    saida = subprocess.run(
        ["git", "ls-files", "d2", "tests", "docs", "scripts", "sql/queries", "*.md"],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # Vendored files (Leaflet) and the Registry's schemas are named by their owners.
    return [a for a in saida if "/_leaflet/" not in a and "/schemas/" not in a]


def test_file_names_follow_the_rule() -> None:
    arquivos = _arquivos()
    if not arquivos:
        pytest.skip("not a git checkout")
    fora = {a: sorted(_fora(Path(a).stem)) for a in arquivos if _fora(Path(a).stem)}
    pastas = {p for a in arquivos for p in Path(a).parent.parts}
    fora |= {p + "/": sorted(_fora(p)) for p in pastas if _fora(p)}
    assert fora == {}


def test_query_names_follow_the_rule() -> None:
    funcoes = {p.stem for p in (db.sql_dir() / "functions").glob("*.sql")}
    fora = {n: sorted(_fora(n)) for n in db.queries() if n not in funcoes and _fora(n)}
    assert fora == {}


def test_every_word_listed_is_used() -> None:
    """The lists stay the vocabulary in use, not a wish list."""
    usadas: set[str] = set()
    for nome in [Path(a).stem for a in _arquivos()] + list(db.queries()):
        usadas |= set(re.split(r"[_\-.]", nome.lower()))
    for a in _arquivos():
        usadas |= {p.lower() for p in Path(a).parent.parts}
    assert sorted(PALAVRAS - usadas) == []
