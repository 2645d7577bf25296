"""How fast an address is read against the gazetteer, for `d2 bench geocode-quality`'s
national run (its environment: the whole territory and every CEP): the reading of
d2.geocoder.places.lookup.contextos (the names held in the process, the round's one round trip
to PostgreSQL, the rules), before any geocoder is asked.

* one text at a time (the corpus's texts, a seeded sample of every form, each read three
  times in a row): p50 and p99 milliseconds of the first reading, against the target of
  2 ms at p99, and of the fastest of the three (what the text costs, without the noise
  of a shared machine);
* the same texts in rounds of 100, texts/s, against one text at a time;
* (hostil, for the corpora of what users write) a hostile text of town names
  (docs/reliability.md, "L1"): 800 characters of the territory's one-word município
  names drawn at random, with and without commas, each text read alone (the fastest of
  three), against the corpus's texts read the same way;
* the names the process holds for misspellings (d2.geocoder.places.names): their memory, and
  what loading them took.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

from d2 import db
from d2.bench import common
from d2.geocoder import fields, parser, question
from d2.geocoder.places import lookup, names

ALVO_MS = 2.0  # one text alone, p99
AMOSTRA = 600
ROUND = 100
VEZES = 3  # readings of each text alone
HOSTIS = 100  # hostile texts of town names, half with commas
HOSTIL_CARACTERES = 800


def _entendidos(casos: list[dict[str, Any]]) -> list[fields.Entendido]:
    """A seeded sample of AMOSTRA of the cases' texts, understood."""
    escolhidos = list(casos)
    random.Random(1).shuffle(escolhidos)
    entendidos = []
    for caso in escolhidos[:AMOSTRA]:
        endereco = question.do_payload(caso["payload"])
        if endereco is not None:
            entendidos.append(parser.entender(endereco))
    return entendidos


def medir(url: str, casos: list[dict[str, Any]], territorio: str) -> Iterator[dict[str, Any]]:
    """The figures of the module's docstring but the hostile texts', on the database at
    url."""
    entendidos = _entendidos(casos)
    if not entendidos:
        return
    with db.connect(url, autocommit=True) as conn:
        carga, nomes = common.timed(lambda: names.carregar(conn))
        for e in entendidos[:50]:  # the session's plans, the names' cache
            lookup.contextos(conn, [e])
        ms: list[float] = []
        minimos: list[float] = []  # the fastest of 3 readings: the text's cost, not the noise
        inicio = time.perf_counter()
        for e in entendidos:
            vezes = []
            for _ in range(VEZES):
                t = time.perf_counter()
                lookup.contextos(conn, [e])
                vezes.append((time.perf_counter() - t) * 1000)
            ms.append(vezes[0])
            minimos.append(min(vezes))
        sozinhos = len(entendidos) * VEZES / (time.perf_counter() - inicio)
        inicio = time.perf_counter()
        for i in range(0, len(entendidos), ROUND):
            lookup.contextos(conn, entendidos[i : i + ROUND])
        rounds = len(entendidos) / (time.perf_counter() - inicio)
    base: dict[str, Any] = {"corpus": "national", "territory": territorio, "texts": len(entendidos)}
    yield common.figure(
        "geocode-quality", "one address text read against the gazetteer, alone, p99",
        common.percentile(ms, 99), "ms", ALVO_MS, "target p99", higher_is_better=False,
        p50_ms=round(common.percentile(ms, 50), 3),
        fastest_of_3_p50_ms=round(common.percentile(minimos, 50), 3),
        fastest_of_3_p99_ms=round(common.percentile(minimos, 99), 3), **base,
    )  # fmt: skip
    yield common.figure(
        "geocode-quality", f"address texts read in rounds of {ROUND}", rounds, "texts/s",
        sozinhos, "one text at a time", **base,
    )  # fmt: skip
    yield {
        "bench": "geocode-quality",
        "figure": "names held in the process for misspellings",
        "bytes": nomes.bytes(),
        "names": len(nomes.por_nome),
        "load_ms": round(carga * 1000, 1),
        **base,
    }


def hostil(url: str, casos: list[dict[str, Any]], corpus: str) -> Iterator[dict[str, Any]]:
    """What a hostile text of town names costs to read, alone, against the cases' texts
    read the same way (the fastest of VEZES readings of each, p50), on the database at
    url: the cost of the text, not the noise of a shared machine."""
    entendidos = _entendidos(casos)
    with db.connect(url, autocommit=True) as conn:
        cidades = [str(r["nome"]) for r in conn.execute(db.q("bench_one_word_municipio_names"))]
        hostis = _hostis(cidades)
        if not entendidos or not hostis:
            return
        for e in entendidos[:50]:  # the session's plans, the names' cache
            lookup.contextos(conn, [e])
        ordinarios = [_mais_rapido(conn, e) for e in entendidos]
        custos = [_mais_rapido(conn, e) for e in hostis]
    yield common.figure(
        "geocode-quality", "a hostile text of town names read alone, p50 (fastest of 3)",
        common.percentile(custos, 50), "ms", common.percentile(ordinarios, 50),
        f"the {corpus} corpus's texts, the same way", higher_is_better=False,
        p99_ms=round(common.percentile(custos, 99), 3),
        baseline_p99_ms=round(common.percentile(ordinarios, 99), 3),
        chars=HOSTIL_CARACTERES, texts=len(custos), corpus=corpus,
    )  # fmt: skip


def _hostis(nomes: list[str]) -> list[fields.Entendido]:
    """HOSTIS texts of HOSTIL_CARACTERES characters of town names drawn at random (seeded),
    half separated by spaces, half by commas, understood."""
    if not nomes:
        return []
    sorteio = random.Random(7)
    saida = []
    for i in range(HOSTIS):
        separador = " " if i % 2 else ", "
        palavras: list[str] = []
        while len(separador.join(palavras)) < HOSTIL_CARACTERES:
            palavras.append(sorteio.choice(nomes))
        texto = separador.join(palavras)[:HOSTIL_CARACTERES]
        endereco = question.do_payload({"entidades_extraidas": {"endereco": texto}})
        if endereco is not None:
            saida.append(parser.entender(endereco))
    return saida


def _mais_rapido(conn: db.Connection, e: fields.Entendido) -> float:
    """The fastest of VEZES readings of one text alone, in milliseconds."""
    vezes = []
    for _ in range(VEZES):
        t = time.perf_counter()
        lookup.contextos(conn, [e])
        vezes.append((time.perf_counter() - t) * 1000)
    return min(vezes)
