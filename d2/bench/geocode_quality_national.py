"""geocode-quality on the national address corpus (d2/bench/address_corpus_national.py):
every text through the real worker (d2/bench/geocode_quality_national_run.py), each answer
judged, a table per form, in total and per UF, the targets, and the misses with their
text and the stage's reason.

Every text gets a verdict on its município:
* right: the município expected (the answer's UC is it or lies inside it), or no
  município where none is expected (a homonym nothing tells apart);
* wrong: another município;
* missed: no answer, or only the UF;
* unexpected: a município where none is expected.
Where a bairro is expected (MS): right (that bairro), wrong (another), missed (none).
The level: over-confident when the município is right but the answer is a bairro where
none is expected; under-confident when a bairro is expected and the município answers.
The targets: at least 97 % right in every form and overall, no wrong município at
endereco/media, at most 0.5 % wrong by inference.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from d2 import errors
from d2.bench import (
    address_corpus_national,
    common,
    geocode_quality_national_run,
    geocode_reading,
)

ALVO_CERTOS = 0.97
ALVO_ERRADOS_INFERENCIA = 0.005
VEREDITOS = ("right", "wrong", "missed", "unexpected")
ROWS_QUICK = 2  # --quick: the first rows of each UF


@dataclass(frozen=True)
class Selecao:
    """Which texts of the corpus run: of some UFs, in some forms, the first rows of each
    UF (None: all); and whether the environment holds only those UFs' territory and CEPs
    (faster to build, but a name another UF shares is then easier than in Brazil)."""

    ufs: tuple[str, ...] = ()
    formas: tuple[str, ...] = ()
    linhas_por_uf: int | None = None
    so_as_ufs: bool = False
    # Another draw than the committed corpus's (same generator, this seed): a check on
    # texts the reading was never tuned on.
    semente: int | None = None

    def escolher(self, casos: list[dict[str, Any]]) -> list[dict[str, Any]]:
        desconhecidas = set(self.formas) - set(address_corpus_national.FORMS)
        if desconhecidas:
            raise errors.InvalidInput(
                f"unknown form {sorted(desconhecidas)[0]!r}; choose from "
                + ", ".join(address_corpus_national.FORMS)
            )
        fora = set(self.ufs) - set(address_corpus_national.UFS)
        if fora:
            raise errors.InvalidInput(f"unknown UF {sorted(fora)[0]!r}")
        return [
            c
            for c in casos
            if (not self.ufs or c["uf"] in self.ufs)
            and (not self.formas or c["forma"] in self.formas)
            and (self.linhas_por_uf is None or linha(c) <= self.linhas_por_uf)
        ]


def linha(caso: dict[str, Any]) -> int:
    """The row's number in its UF (1 for the first drawn)."""
    return int(caso["id"].split("-")[2])


# --- verdicts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Veredito:
    municipio: str  # VEREDITOS
    bairro: str | None  # right, wrong, missed; None where no bairro is expected
    nivel: str  # as_expected, over_confident, under_confident
    metodo: str | None


def julgar(esperado: dict[str, Any], resposta: dict[str, Any]) -> Veredito:
    """The verdict of one text (see the module's docstring)."""
    codigo = str(resposta.get("uc_codigo") or "") if resposta.get("unidade_civica_id") else ""
    obtido = codigo[:7] if len(codigo) >= 7 else None
    metodo = resposta.get("metodo_resolucao")
    if esperado["municipio"] is None:
        return Veredito("right" if obtido is None else "unexpected", None, "as_expected", metodo)
    if obtido is None:
        municipio = "missed"
    else:
        municipio = "right" if obtido == esperado["municipio"] else "wrong"
    bairro = None
    if esperado["bairro"] is not None:
        if codigo == esperado["bairro"]:
            bairro = "right"
        else:
            bairro = "wrong" if len(codigo) == 10 else "missed"
    nivel = "as_expected"
    if municipio == "right":
        esperada = 10 if esperado["bairro"] else 7
        if len(codigo) > esperada:
            nivel = "over_confident"
        elif len(codigo) < esperada:
            nivel = "under_confident"
    return Veredito(municipio, bairro, nivel, metodo)


@dataclass
class Placar:
    casos: int = 0
    municipio: Counter[str] = field(default_factory=Counter)
    bairro: Counter[str] = field(default_factory=Counter)
    nivel: Counter[str] = field(default_factory=Counter)
    errados_na_media: int = 0
    errados_por_inferencia: int = 0

    def somar(self, v: Veredito) -> None:
        self.casos += 1
        self.municipio[v.municipio] += 1
        if v.bairro is not None:
            self.bairro[v.bairro] += 1
        self.nivel[v.nivel] += 1
        if v.municipio in ("wrong", "unexpected"):
            if v.metodo == "endereco":
                self.errados_na_media += 1
            else:
                self.errados_por_inferencia += 1

    @property
    def certos(self) -> float:
        return self.municipio["right"] / self.casos if self.casos else 0.0

    def linha(self) -> dict[str, Any]:
        return {
            "cases": self.casos,
            "right_pct": round(100 * self.certos, 1),
            **{v: self.municipio[v] for v in VEREDITOS},
            "bairro_expected": sum(self.bairro.values()),
            "bairro_right": self.bairro["right"],
            "bairro_wrong": self.bairro["wrong"],
            "over_confident": self.nivel["over_confident"],
            "under_confident": self.nivel["under_confident"],
            "wrong_at_media": self.errados_na_media,
        }


@dataclass
class Avaliacao:
    casos: list[dict[str, Any]]
    execucao: geocode_quality_national_run.Execucao
    vereditos: dict[str, Veredito]  # case id → its verdict
    total: Placar
    por_forma: dict[str, Placar]
    por_uf: dict[str, Placar]

    def alvos(self) -> dict[str, bool]:
        alvos = {
            f"≥ {ALVO_CERTOS:.0%} right município, {forma}": p.certos >= ALVO_CERTOS
            for forma, p in self.por_forma.items()
        }
        alvos[f"≥ {ALVO_CERTOS:.0%} right município overall"] = self.total.certos >= ALVO_CERTOS
        alvos["0 wrong município at endereco/media"] = self.total.errados_na_media == 0
        alvos[f"≤ {ALVO_ERRADOS_INFERENCIA:.1%} wrong by inference"] = (
            self.total.errados_por_inferencia <= ALVO_ERRADOS_INFERENCIA * self.total.casos
        )
        return alvos


def avaliar(amb: geocode_quality_national_run.Ambiente, casos: list[dict[str, Any]]) -> Avaliacao:
    """Run the texts through the worker and judge every answer."""
    execucao = geocode_quality_national_run.executar(amb, casos)
    vereditos: dict[str, Veredito] = {}
    total = Placar()
    por_forma: dict[str, Placar] = defaultdict(Placar)
    por_uf: dict[str, Placar] = defaultdict(Placar)
    for caso in casos:
        v = julgar(caso["esperado"], execucao.respostas[caso["id"]])
        vereditos[caso["id"]] = v
        for placar in (total, por_forma[caso["forma"]], por_uf[caso["uf"]]):
            placar.somar(v)
    ordem = {f: i for i, f in enumerate(address_corpus_national.FORMS)}
    formas = dict(sorted(por_forma.items(), key=lambda kv: ordem[kv[0]]))
    return Avaliacao(casos, execucao, vereditos, total, formas, dict(sorted(por_uf.items())))


# --- the benchmark -----------------------------------------------------------------------------


def medir(srv: common.Server, selecao: Selecao, *, falhas: bool = True) -> Iterator[dict[str, Any]]:
    """The national corpus (or the texts selected) through the worker: the tables, the
    targets, the misses (when falhas) and what the run took."""
    if selecao.semente is None:
        _, casos = address_corpus_national.ler()
    else:
        casos = address_corpus_national.gerar(semente=selecao.semente).casos
    escolhidos = selecao.escolher(casos)
    if not escolhidos:
        raise errors.InvalidInput("no text of the national corpus matches the selection")
    inicio = time.perf_counter()
    # The whole territory and every CEP, unless asked for the UFs' own only.
    ufs = tuple(sorted(selecao.ufs)) if selecao.so_as_ufs and selecao.ufs else None
    with geocode_quality_national_run.ambiente(srv, ufs=ufs) as amb:
        yield {
            "bench": "setup",
            "corpus": "national",
            "figure": "national corpus environment",
            "seconds": {k: round(v, 1) for k, v in amb.segundos.items()},
            "territory": "whole" if ufs is None else ", ".join(ufs),
            "nominatim": "none" if amb.nominatim_url is None else "one that knows no street",
            "cep_import": amb.cep_import,
        }
        # Read-only, before any clone of the template is made (a clone needs it idle).
        yield from geocode_reading.medir(
            common.with_dbname(srv.admin_url, amb.template),
            escolhidos,
            "whole" if ufs is None else ", ".join(ufs),
        )
        av = avaliar(amb, escolhidos)
    yield from relatorio(av, falhas=falhas)
    yield {
        "bench": "geocode-quality",
        "corpus": "national",
        "figure": "run time",
        "texts": len(escolhidos),
        "seconds": round(time.perf_counter() - inicio, 1),
        "worker_seconds": round(av.execucao.segundos, 1),
        "stage_seconds": round(av.execucao.segundos_stage, 1),
        "texts_per_s_in_stage": round(len(escolhidos) / av.execucao.segundos_stage, 1)
        if av.execucao.segundos_stage
        else None,
    }


def relatorio(av: Avaliacao, *, falhas: bool = True) -> Iterator[dict[str, Any]]:
    """JSON lines: one per form, the total, one per UF (worst first), the targets, the
    misses."""
    base = {"bench": "geocode-quality", "corpus": "national"}
    for forma, placar in av.por_forma.items():
        yield {**base, "form": forma, **placar.linha()}
    yield {**base, "form": "total", **av.total.linha()}
    for uf, placar in sorted(av.por_uf.items(), key=lambda kv: (kv[1].certos, kv[0])):
        yield {**base, "uf": uf, **placar.linha()}
    for alvo, feito in av.alvos().items():
        yield {**base, "target": alvo, "met": feito}
    yield {
        **base,
        "figure": "answers by step",
        "steps": dict(sorted(Counter(
            str(r.get("passo")) for r in av.execucao.respostas.values()
            if r.get("unidade_civica_id")
        ).items())),
        "discards": dict(sorted(Counter(
            str(r.get("motivo")) for r in av.execucao.respostas.values()
            if not r.get("unidade_civica_id")
        ).items())),
    }  # fmt: skip
    if falhas:
        yield from erros(av)


def _falha(v: Veredito) -> str:
    """What is wrong with a text's answer: its município, else its bairro, else its level."""
    if v.municipio != "right":
        return v.municipio
    return f"bairro {v.bairro}" if v.bairro not in (None, "right") else v.nivel


def erros(av: Avaliacao) -> Iterator[dict[str, Any]]:
    """Each text whose município or bairro is not right, or answered at another level:
    its text, what was expected and answered, and the stage's reason and step."""
    for caso in av.casos:
        v = av.vereditos[caso["id"]]
        if v.municipio == "right" and v.bairro in (None, "right") and v.nivel == "as_expected":
            continue
        r = av.execucao.respostas[caso["id"]]
        yield {
            "bench": "geocode-quality",
            "corpus": "national",
            "miss": caso["id"],
            "verdict": _falha(v),
            "text": caso["payload"]["entidades_extraidas"].get("endereco"),
            "expected": caso["esperado"]["bairro"] or caso["esperado"]["municipio"],
            "answered": r.get("uc_codigo"),
            "answered_name": r.get("uc_nome"),
            "metodo": r.get("metodo_resolucao"),
            "motivo": r.get("motivo"),
            "passo": r.get("passo"),
            "understood": r.get("endereco_entendido"),
        }
