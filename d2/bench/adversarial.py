"""adversarial: what a hostile address text costs the geocoding stage (docs/reliability.md,
section 6, "Hostile address texts").

Address-only demands go through the worker (the handler parks them, the geocoding stage
understands them, asks the sample Nominatim, decides) against the sample Nominatim built
once in a d2_bench_nominatim_* database. Figure: milliseconds per adversarial text (long,
many segments, many place names, many numbers, 100 kB), every text distinct so nothing
comes from the cache; baseline: milliseconds per ordinary address of the same run.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from d2 import config, db
from d2.bench import common
from d2.handler import handler
from d2.importers import sample, sample_osm
from d2.worker import loop


def ordinarios(n: int, primeiro: int = 2000) -> list[str]:
    """n distinct addresses of the sample: street, house number, município."""
    ruas = [
        (rua.nome, sample.municipios()[codigo][0])
        for codigo, (_, _, lista) in sample_osm.LUGARES.items()
        for rua in lista
    ]
    return [f"{ruas[i % len(ruas)][0]}, {primeiro + i}, {ruas[i % len(ruas)][1]}" for i in range(n)]


def adversarios(n: int) -> list[str]:
    """n distinct hostile texts: what makes a parser, the name search or Nominatim work."""
    lugares = [nome for nome, _ in sample.municipios().values()] + ["AU", "BO", "CA", "Centro"]
    formas = [
        lambda i: f"{i}, " + "a, " * 40_000,  # 100 kB of one-letter segments
        lambda i: f"{i} " + " ".join(f"palavra{j}" for j in range(60)),  # many words
        lambda i: f"{i}, " + ", ".join(lugares * 8),  # many place names, each a segment
        lambda i: f"{i} " + " ".join(lugares * 8),  # many place names, no separators
        lambda i: f"{i} " + " ".join(str(j) for j in range(120)),  # many numbers
        lambda i: f"Rua {i} " + "Rua " * 80 + "1" * 200,  # street words and a huge number
        lambda i: f"{i} " + "(" * 150 + "Centro" + ")" * 150,  # nesting
        lambda i: f"{i} em frente ao " * 30 + "esquina com " * 30,  # reference phrases
        lambda i: f"{i} " + "apto 1 bloco 2 casa 3 fundos qd 4 lt 5 " * 12,  # complements
        lambda i: f"{i} " + "Vila Aurora/AU-" * 30 + "S/N " * 30,  # slashes and dashes
    ]
    return [formas[i % len(formas)](i) for i in range(n)]


def _publicar(url: str, textos: list[str]) -> None:
    with common.connect(url, autocommit=False) as conn:
        row = conn.execute(db.q("bench_max_sequence")).fetchone()
        assert row is not None
        conn.execute(
            db.q("bench_events_insert"),
            {"lats": [None] * len(textos), "lngs": [None] * len(textos), "enderecos": textos},
        )
        handler.CURSOR.colocar(conn, int(row["seq"]))
        conn.commit()


def _ms_por_texto(url: str, settings: config.Settings, textos: list[str]) -> float:
    _publicar(url, textos)
    inicio = time.perf_counter()
    loop.Worker(settings, url=url, batch_size=500).executar(drain=True)
    return (time.perf_counter() - inicio) * 1000 / len(textos)


def medir(srv: common.Server, n: int) -> Iterator[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="d2-bench-adv-") as tmp:
        home = Path(tmp)
        arquivo = sample_osm.write_osm(home / "amostra.osm")
        with (
            common.nominatim(srv, home, arquivo, "d2_bench_nominatim_adv") as (nominatim_url, _),
            common.scratch_db(srv, "adv") as url,
        ):
            settings = dataclasses.replace(
                config.load(), home=home, nominatim_dsn=nominatim_url, nominatim_url=None
            )
            sample.load_sample(url)
            loop.Worker(settings, url=url).executar(drain=True)  # boot: seeds the cursor
            _ms_por_texto(url, settings, ordinarios(20, 9000))  # warm: Nominatim, enderecobr
            ordinario = _ms_por_texto(url, settings, ordinarios(n))
            hostil = _ms_por_texto(url, settings, adversarios(n))
            yield common.figure(
                "adversarial", "cost of a hostile address text", hostil, "ms/text",
                ordinario, "an ordinary address (street, number, município)",
                higher_is_better=False, texts=n,
            )  # fmt: skip
