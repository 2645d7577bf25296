"""How fast an address is read against the gazetteer, for `d2 bench geocode-quality`'s
national run (its environment: the whole territory and every CEP): the reading of
d2.geocoder.places.lookup.contextos (the names held in the process, the round's one round trip
to PostgreSQL, the rules), before any geocoder is asked.

* one text at a time (the corpus's texts, a seeded sample of every form, each read three
  times in a row): p50 and p99 milliseconds of the first reading, against the target of
  2 ms at p99, and of the fastest of the three (what the text costs, without the noise
  of a shared machine);
* the same texts in rounds of 100, texts/s, against one text at a time;
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
from d2.geocoder import parser, question
from d2.geocoder.places import lookup, names

ALVO_MS = 2.0  # one text alone, p99
AMOSTRA = 600
ROUND = 100
VEZES = 3  # readings of each text alone


def medir(url: str, casos: list[dict[str, Any]], territorio: str) -> Iterator[dict[str, Any]]:
    """The figures of the module's docstring, on the database at url."""
    escolhidos = list(casos)
    random.Random(1).shuffle(escolhidos)
    entendidos = []
    for caso in escolhidos[:AMOSTRA]:
        endereco = question.do_payload(caso["payload"])
        if endereco is not None:
            entendidos.append(parser.entender(endereco))
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
