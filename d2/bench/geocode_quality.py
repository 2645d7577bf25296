"""geocode-quality: the address corpus (d2/bench/address_corpus.py) through the real
worker's address path (the ladder), beside Nominatim alone (the whole text as one free-text
search, its first match resolved) in the same run.

d2/bench/geocode_quality_run.py builds the environment (a D-2 database with the corpus's
territory and CEPs, the corpus's Nominatim) and makes both runs; this module judges
every answer and prints the table.

Every case gets one verdict:
* right: the expected UC (or nothing, where nothing is expected) by the expected method;
* wrong_uc: a UC that is neither the expected one, nor above it, nor inside it;
* missed: nothing, where a UC was expected;
* unexpected: a UC where none was expected;
* over_confident: the expected UC by a surer method (endereco for inferencia), or a UC
  inside the expected one;
* under_confident: the expected UC by a less sure method, or a UC above it.

The ladder's targets: at least 95 % right; no wrong answer at endereco/media (wrong_uc or
unexpected); every case that names a place with its street answered at the street
(endereco at its UC) and every case that names no place left unresolved.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d2 import errors
from d2.bench import address_corpus, common, geocode_quality_run
from d2.importers import ibge

# The baseline first, then the address path.
CAMINHOS = (geocode_quality_run.NOMINATIM, geocode_quality_run.LADDER)
VEREDITOS = ("right", "wrong_uc", "missed", "unexpected", "over_confident", "under_confident")
ALVO_CERTOS = 0.95
_SURER = {"inferencia": 1, "endereco": 2, "gps": 3}


# --- verdicts ----------------------------------------------------------------------------------


def uc_esperada(codigo: str) -> tuple[uuid.UUID, set[uuid.UUID]]:
    """The UC of an IBGE code (bairro: 10 digits, município: 7) and the UCs above it."""
    nivel = 2 if len(codigo) == 10 else 4
    acima = {
        ibge.uc_id(5, codigo[:2]),
        ibge.uc_id(6, codigo[:1]),
        ibge.uc_id(7, "BR"),
    }
    if nivel == 2:
        acima.add(ibge.uc_id(4, codigo[:7]))
    return ibge.uc_id(nivel, codigo), acima


def julgar(esperado: dict[str, Any], resposta: dict[str, Any]) -> str:
    """The verdict of one case (see the module's docstring)."""
    obtida = resposta.get("unidade_civica_id")
    if esperado["uc"] is None:
        return "right" if obtida is None else "unexpected"
    if obtida is None:
        return "missed"
    uc, acima = uc_esperada(esperado["uc"])
    metodo = resposta.get("metodo_resolucao") or ""
    if obtida == uc:
        if metodo == esperado["metodo"]:
            return "right"
        mais = _SURER.get(metodo, 0) > _SURER.get(esperado["metodo"], 0)
        return "over_confident" if mais else "under_confident"
    if obtida in acima:
        return "under_confident"
    if uc in (resposta.get("cadeia_ucs") or []):
        return "over_confident"
    return "wrong_uc"


@dataclass
class Placar:
    """The verdicts of one path over a set of cases."""

    casos: int = 0
    vereditos: Counter[str] = field(default_factory=Counter)
    errados_na_media: int = 0  # wrong_uc or unexpected at endereco/media
    de_rua: int = 0  # cases expected at their street
    de_rua_certos: int = 0
    sem_lugar: int = 0  # cases expected unresolved
    sem_lugar_certos: int = 0
    precisao_igual: int = 0  # right cases whose precision (from the view) is the expected one
    nao_terminados: int = 0  # events left without a terminal state (must be 0)

    def somar(self, caso: dict[str, Any], resposta: dict[str, Any]) -> str:
        veredito = julgar(caso["esperado"], resposta)
        self.casos += 1
        self.vereditos[veredito] += 1
        if (
            veredito in ("wrong_uc", "unexpected")
            and resposta.get("metodo_resolucao") == "endereco"
        ):
            self.errados_na_media += 1
        if caso["esperado"]["metodo"] == "endereco":
            self.de_rua += 1
            self.de_rua_certos += veredito == "right"
        if caso["esperado"]["uc"] is None:
            self.sem_lugar += 1
            self.sem_lugar_certos += veredito == "right"
        if veredito == "right" and resposta.get("precisao") == caso["esperado"]["precisao"]:
            self.precisao_igual += 1
        if not resposta.get("processado"):
            self.nao_terminados += 1
        return veredito

    @property
    def certos(self) -> float:
        return self.vereditos["right"] / self.casos if self.casos else 0.0

    def linha(self, com_passos: bool) -> dict[str, Any]:
        saida: dict[str, Any] = {v: self.vereditos[v] for v in VEREDITOS}
        saida["right_pct"] = round(100 * self.certos, 1)
        saida["wrong_at_media"] = self.errados_na_media
        if com_passos:
            saida["precision_as_expected"] = self.precisao_igual
        return saida

    def alvos(self) -> dict[str, bool]:
        return {
            f"≥ {ALVO_CERTOS:.0%} right": self.certos >= ALVO_CERTOS,
            "0 wrong answers at endereco/media": self.errados_na_media == 0,
            "every address naming a place answered at its street": (
                self.de_rua_certos == self.de_rua
            ),
            "every text naming no place left unresolved": self.sem_lugar_certos == self.sem_lugar,
        }


@dataclass
class Avaliacao:
    """The baseline and the address path over the same cases."""

    casos: list[dict[str, Any]]
    execucoes: dict[str, geocode_quality_run.Execucao]
    total: dict[str, Placar]
    por_categoria: dict[str, dict[str, Placar]]
    vereditos: dict[str, dict[str, str]]  # path → case id → verdict


def avaliar(amb: geocode_quality_run.Ambiente, casos: list[dict[str, Any]]) -> Avaliacao:
    """Run the cases through the baseline and the address path; judge every answer."""
    execucoes = {
        geocode_quality_run.NOMINATIM: geocode_quality_run.nominatim_sozinho(amb, casos),
        geocode_quality_run.LADDER: geocode_quality_run.executar(amb, casos),
    }
    total = {valor: Placar() for valor in CAMINHOS}
    por_categoria: dict[str, dict[str, Placar]] = defaultdict(
        lambda: {valor: Placar() for valor in CAMINHOS}
    )
    vereditos: dict[str, dict[str, str]] = {valor: {} for valor in CAMINHOS}
    for valor, execucao in execucoes.items():
        for caso in casos:
            resposta = execucao.respostas[caso["id"]]
            vereditos[valor][caso["id"]] = total[valor].somar(caso, resposta)
            por_categoria[caso["categoria"]][valor].somar(caso, resposta)
    return Avaliacao(casos, execucoes, total, dict(por_categoria), vereditos)


def amostra(casos: list[dict[str, Any]], por_categoria: int) -> list[dict[str, Any]]:
    """The short form: the first cases of each category (the corpus's order is seeded)."""
    contagem: Counter[str] = Counter()
    escolhidos = []
    for caso in casos:
        if contagem[caso["categoria"]] < por_categoria:
            contagem[caso["categoria"]] += 1
            escolhidos.append(caso)
    return escolhidos


def buscas_por_endereco(execucao: geocode_quality_run.Execucao) -> dict[str, Any]:
    """Nominatim searches per address of one path: the mean from the searches recorded
    in process; their distribution, and the ladder steps that answered, from
    d2.v_geocodificacoes where it exists."""
    enderecos = execucao.enderecos
    saida: dict[str, Any] = {
        "searches": len(execucao.gravacao.buscas),
        "addresses": enderecos,
        "mean": round(len(execucao.gravacao.buscas) / enderecos, 2) if enderecos else None,
    }
    if execucao.com_passos:
        saida["steps"] = dict(
            sorted(Counter(str(r.get("passo")) for r in execucao.respostas.values()
                           if not r["gps"] and r.get("unidade_civica_id")).items())
        )  # fmt: skip
        por_endereco = [
            int(r["consultas"] or 0)
            for r in execucao.respostas.values()
            if not r["gps"] and r.get("consultas") is not None
        ]
        saida["distribution"] = dict(sorted(Counter(por_endereco).items()))
        saida["p95"] = common.percentile([float(x) for x in por_endereco], 95)
        saida["max"] = max(por_endereco, default=0)
    return saida


# --- the benchmark -----------------------------------------------------------------------------


def medir(srv: common.Server, quick: bool) -> Iterator[dict[str, Any]]:
    """`d2 bench geocode-quality`: the table, per category and in total, both runs."""
    _, comprometidos = address_corpus.ler()
    with geocode_quality_run.ambiente(srv) as amb:
        if amb.corpus.casos != comprometidos:
            raise errors.D2Error(
                f"{address_corpus.ARQUIVO.name} is not what the generator makes from this "
                "CEP Aberto and shared data: run scripts/address_corpus.sh"
            )
        yield {
            "bench": "setup",
            "figure": "address corpus environment",
            "seconds": {k: round(v, 1) for k, v in amb.segundos.items()},
            "cep_import": amb.cep_import,
            "cases": len(amb.corpus.casos),
            "streets": len(amb.corpus.ruas),
        }
        casos = amostra(amb.corpus.casos, 5) if quick else amb.corpus.casos
        yield from relatorio(avaliar(amb, casos))


def relatorio(av: Avaliacao) -> Iterator[dict[str, Any]]:
    """JSON lines: one per category, the total, the targets, the searches."""
    com_passos = {v: e.com_passos for v, e in av.execucoes.items()}
    for categoria in sorted(av.por_categoria):
        placares = av.por_categoria[categoria]
        yield {
            "bench": "geocode-quality",
            "category": categoria,
            "cases": placares[CAMINHOS[0]].casos,
            **{v: placares[v].linha(com_passos[v]) for v in CAMINHOS},
        }
    yield {
        "bench": "geocode-quality",
        "category": "total",
        "cases": len(av.casos),
        **{v: av.total[v].linha(com_passos[v]) for v in CAMINHOS},
    }
    for alvo in av.total[CAMINHOS[0]].alvos():
        yield {
            "bench": "geocode-quality",
            "target": alvo,
            **{f"{v}_met": av.total[v].alvos()[alvo] for v in CAMINHOS},
        }
    yield {
        "bench": "geocode-quality",
        "figure": "Nominatim searches per address",
        **{v: buscas_por_endereco(e) for v, e in av.execucoes.items()},
    }
    terminados = {v: av.total[v].nao_terminados for v in CAMINHOS}
    yield {
        "bench": "geocode-quality",
        "figure": "events without a terminal state",
        **{v: n for v, n in terminados.items()},
    }
    destino = os.environ.get("D2_BENCH_CASES")
    if destino:
        escrever_casos(av, Path(destino))


def escrever_casos(av: Avaliacao, destino: Path) -> None:
    """Every case with both runs' answers and verdicts, one JSON line each (D2_BENCH_CASES)."""
    with destino.open("w", encoding="utf-8") as arquivo:
        for caso in av.casos:
            linha: dict[str, Any] = {
                "id": caso["id"],
                "esperado": caso["esperado"],
                "entidades": caso["payload"]["entidades_extraidas"],
            }
            for valor, execucao in av.execucoes.items():
                r = execucao.respostas[caso["id"]]
                linha[valor] = {
                    "verdict": av.vereditos[valor][caso["id"]],
                    "uc": r.get("uc_codigo"),
                    "nome": r.get("uc_nome"),
                    "metodo": r.get("metodo_resolucao"),
                    "geocodificado": r.get("endereco_geocodificado"),
                    "precisao": r.get("precisao"),
                    "passo": r.get("passo"),
                    "consultas": r.get("consultas"),
                }
            arquivo.write(json.dumps(linha, ensure_ascii=False, default=str) + "\n")
