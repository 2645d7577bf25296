"""geocode-quality on what users write, not on what the evidence holds: the citizen corpus
(d2/bench/corpus/citizen.py: phrasings by writers who never read the reader, places drawn
at random in all 27 UFs), its texts that name no place, and the national corpus drawn per
município (d2/bench/address_corpus_municipios.py) — each read with its own rows' street
and bairro held out of d2.cep_nomes, against the whole IBGE territory and every CEP, with
no Nominatim; and each read again, in the same run, by a previous commit's worker (the
reading before a change), so that every table has the old reading beside it.

The citizen corpus and its texts that name no place come in two parts: "seen", which the
reading rules may be written against, and "unseen", kept out of sight until they are done;
the unseen part's table is the figure. Misses are listed for the seen part only.

Verdicts are the national corpus's (d2/bench/geocode_quality_national.py): right (the
município expected, or none where none is expected), wrong (another município), missed
(none, or the UF only), unexpected (a município where none is expected); over- and
under-confident by level. Targets: at least 97 % right on texts a reader can decide, no
wrong município at endereco/media, at most 0.2 % wrong by inference; texts that name no
place given a município at most 1 %.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from d2 import db
from d2.bench import (
    address_corpus_municipios,
    common,
    geocode_quality_national,
    geocode_quality_national_run,
    geocode_quality_run,
    previous,
)
from d2.bench.corpus import citizen
from d2.nome_busca import nome_busca
from d2.worker import loop

ALVO_CERTOS = 0.97
ALVO_ERRADOS_INFERENCIA = 0.002
ALVO_SEM_LUGAR = 0.01
# The reading before the rules that read places only where a reader reads one.
ANTERIOR = "2bcc48d"
CORPORA = ("citizen", "no_place", "municipios")
Placar = geocode_quality_national.Placar


@dataclass(frozen=True)
class Escolha:
    """What runs: the corpora, the parts of the two-part ones, and the commit whose
    reading is printed beside this one (None: this one alone)."""

    corpora: tuple[str, ...] = CORPORA
    partes: tuple[str, ...] = citizen.PARTES
    anterior: str | None = ANTERIOR
    falhas: bool = True


def casos(escolha: Escolha) -> dict[str, list[dict[str, Any]]]:
    """Each corpus's cases, of the parts chosen."""
    saida: dict[str, list[dict[str, Any]]] = {}
    if {"citizen", "no_place"} & set(escolha.corpora):
        _, todos = common.ler_corpus(citizen.ARQUIVO)
        todos = [c for c in todos if c["parte"] in escolha.partes]
        if "citizen" in escolha.corpora:
            saida["citizen"] = [c for c in todos if c["forma"] != "sem_lugar"]
        if "no_place" in escolha.corpora:
            saida["no_place"] = [c for c in todos if c["forma"] == "sem_lugar"]
    if "municipios" in escolha.corpora:
        saida["municipios"] = address_corpus_municipios.ler()[1]
    return saida


def retirar(url: str, casos: list[dict[str, Any]]) -> int:
    """The cases' own rows' names out of d2.cep_nomes: a street as d2 cep import writes it
    (its name without its first word), a bairro whole and before a parenthesis."""
    codigos: list[str] = []
    nomes: list[str] = []
    tipos: list[str] = []
    for caso in casos:
        fora = caso.get("retirar") or {}
        for nome in fora.get("nomes") or []:
            # Each name held out as a street and as a bairro: a corpus row says which it
            # is, but a bairro named like the street (or the other way) must go too.
            termos = [("logradouro", nome_busca(nome.split(" ", 1)[-1]))]
            termos += [("bairro", nome_busca(nome)), ("bairro", nome_busca(nome.split("(")[0]))]
            for tipo, termo in termos:
                codigos.append(fora["municipio"])
                nomes.append(termo)
                tipos.append(tipo)
    if not codigos:
        return 0
    with common.connect(url) as conn:
        feito = conn.execute(
            db.q("bench_delete_held_names"), {"codigos": codigos, "nomes": nomes, "tipos": tipos}
        )
        return feito.rowcount


@dataclass
class Leitura:
    """One reading of a corpus: by this code or a previous commit's."""

    quem: str
    respostas: dict[str, dict[str, Any]]
    segundos: float


def ler(
    amb: geocode_quality_national_run.Ambiente,
    casos: list[dict[str, Any]],
    arvore: Any = None,
) -> Leitura:
    """The cases on a clone of the environment's template, their rows held out, drained by
    this worker (arvore None) or by the worker of a previous commit's tree."""
    with common.scratch_db(amb.srv, "corpora", template=amb.template) as url:
        retirar(url, casos)
        geocode_quality_run.publicar(url, casos)
        if arvore is None:
            segundos, _, _ = geocode_quality_run.drenar(loop.Worker(amb.settings(), url=url))
            quem = "current"
        else:
            env = {"D2_NOMINATIM": "off", "D2_GEOCODER": "on", "D2_HOME": str(amb.home)}
            segundos = previous.drenar(arvore, url, env)
            quem = "previous"
        respostas, _ = geocode_quality_run.ler_respostas(url, casos)
        motivos = geocode_quality_national_run.ler_motivos(
            url, [geocode_quality_run.event_id(c) for c in casos]
        )
    for caso in casos:
        respostas[caso["id"]] |= motivos.get(geocode_quality_run.event_id(caso), {})
    return Leitura(quem, respostas, segundos)


def placares(
    casos: list[dict[str, Any]], leitura: Leitura
) -> tuple[dict[str, Placar], dict[str, Placar], dict[str, geocode_quality_national.Veredito]]:
    """Per part (and in total), per form: the scores; and each case's verdict."""
    por_parte: dict[str, Placar] = defaultdict(Placar)
    por_forma: dict[str, Placar] = defaultdict(Placar)
    vereditos = {}
    for caso in casos:
        v = geocode_quality_national.julgar(caso["esperado"], leitura.respostas[caso["id"]])
        vereditos[caso["id"]] = v
        for placar in (por_parte[caso.get("parte") or "all"], por_forma[caso["forma"]]):
            placar.somar(v)
    return dict(por_parte), dict(por_forma), vereditos


def _linha(corpus: str, quem: str, placar: Placar, **chave: Any) -> dict[str, Any]:
    linha = {"bench": "geocode-quality", "corpus": corpus, "reading": quem, **chave}
    return linha | placar.linha() | {"wrong_by_inference": placar.errados_por_inferencia}


def alvos(corpus: str, placar: Placar) -> dict[str, bool]:
    if corpus == "no_place":
        dados = placar.municipio["unexpected"] + placar.municipio["wrong"]
        return {f"≤ {ALVO_SEM_LUGAR:.0%} given a município": dados <= ALVO_SEM_LUGAR * placar.casos}
    return {
        f"≥ {ALVO_CERTOS:.0%} right": placar.certos >= ALVO_CERTOS,
        "0 wrong município at endereco/media": placar.errados_na_media == 0,
        f"≤ {ALVO_ERRADOS_INFERENCIA:.1%} wrong by inference": placar.errados_por_inferencia
        <= ALVO_ERRADOS_INFERENCIA * placar.casos,
    }


def medir(srv: common.Server, escolha: Escolha = Escolha()) -> Iterator[dict[str, Any]]:
    """Every corpus chosen, read by this worker and by the previous commit's, side by side:
    per part, per form, the targets (this reading's), and the seen part's misses."""
    corpora = casos(escolha)
    inicio = time.perf_counter()
    with geocode_quality_national_run.ambiente(srv) as amb:
        yield {
            "bench": "setup",
            "corpus": "citizen, no_place, municipios",
            "figure": "national environment",
            "seconds": {k: round(v, 1) for k, v in amb.segundos.items()},
            "cep_import": amb.cep_import,
            "previous": previous.descrever(escolha.anterior) if escolha.anterior else None,
        }
        leituras: dict[str, list[Leitura]] = {nome: [] for nome in corpora}
        anterior = escolha.anterior if previous.disponivel() else None
        with previous.worktree(anterior) if anterior else contextlib.nullcontext() as arvore:
            for nome, lista in corpora.items():
                if arvore is not None:
                    leituras[nome].append(ler(amb, lista, arvore))
                leituras[nome].append(ler(amb, lista))
    for nome, lista in corpora.items():
        yield from relatorio(nome, lista, leituras[nome], falhas=escolha.falhas)
    yield {
        "bench": "geocode-quality",
        "corpus": ", ".join(corpora),
        "figure": "run time",
        "seconds": round(time.perf_counter() - inicio, 1),
        "readings": {
            f"{n} {x.quem}": round(x.segundos, 1) for n, xs in leituras.items() for x in xs
        },
    }


def relatorio(
    nome: str, lista: list[dict[str, Any]], leituras: list[Leitura], *, falhas: bool
) -> Iterator[dict[str, Any]]:
    ultimo: tuple[dict[str, Placar], dict[str, Placar], dict[str, Any]] | None = None
    for leitura in leituras:
        por_parte, por_forma, vereditos = placares(lista, leitura)
        for parte, placar in sorted(por_parte.items()):
            yield _linha(nome, leitura.quem, placar, part=parte)
        ultimo = (por_parte, por_forma, vereditos)
    if ultimo is None:
        return
    por_parte, por_forma, vereditos = ultimo
    for forma, placar in sorted(por_forma.items()):
        yield _linha(nome, leituras[-1].quem, placar, form=forma)
    for parte, placar in sorted(por_parte.items()):
        for alvo, feito in alvos(nome, placar).items():
            yield {"bench": "geocode-quality", "corpus": nome, "part": parte, "target": alvo,
                   "met": feito}  # fmt: skip
    if falhas:
        for caso in lista:
            if caso.get("parte") == "unseen":
                continue
            v = vereditos[caso["id"]]
            if v.municipio == "right" and v.bairro in (None, "right"):
                continue
            r = leituras[-1].respostas[caso["id"]]
            yield {
                "bench": "geocode-quality",
                "corpus": nome,
                "miss": caso["id"],
                "verdict": v.municipio if v.municipio != "right" else f"bairro {v.bairro}",
                "text": caso["payload"]["entidades_extraidas"].get("endereco"),
                "expected": caso["esperado"]["bairro"] or caso["esperado"]["municipio"],
                "answered": r.get("uc_codigo"),
                "answered_name": r.get("uc_nome"),
                "metodo": r.get("metodo_resolucao"),
                "motivo": r.get("motivo"),
                "passo": r.get("passo"),
                "understood": r.get("endereco_entendido"),
            }
