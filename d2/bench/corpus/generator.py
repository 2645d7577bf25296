"""The address corpus's generator (d2/bench/address_corpus.py puts it to work): the
streets chosen from CEP Aberto and placed on the map, and the helpers the categories
(d2/bench/corpus/categories.py) write their cases with, each with its expected answer.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from d2.bench.corpus import street, territorio, text
from d2.bench.corpus.street import Rua
from d2.bench.corpus.territorio import Bairro

SEMENTE = 26

_MARGEM_BAIRRO = 0.0006  # the importer simplifies bairros by 0.0001°
_MARGEM_MUNICIPIO = 0.004  # municípios by 0.001° (and the OSM boundaries by 0.002°)
_RAIO_SEDE = 0.03  # streets of a município without bairros stay near its seat

_NUMERO_NO_NOME = re.compile(r"^(?P<nome>.+?)\s+(?P<numero>\d+)$")


class Gerador:
    """The corpus being made: the territory and CEP Aberto's names it draws on, the streets
    chosen so far, the cases written so far, and the one seeded random generator."""

    def __init__(self, shared: Path) -> None:
        self.rng = random.Random(SEMENTE)
        self.t = territorio.ler(shared)
        conn, self.cepx_versao = territorio.abrir_cepx()
        with conn:
            self.linhas = territorio.linhas_cep(conn)
            cidades = territorio.cidades_cep(conn)
        conn.close()
        # The UFs where each município name is used, by IBGE or by CEP Aberto.
        self.ufs_do_nome: dict[str, set[str]] = defaultdict(set)
        for uf, cidade in cidades:
            self.ufs_do_nome[text.dobrar(cidade)].add(uf)
        for nome, ufs in self.t.ufs_ibge.items():
            self.ufs_do_nome[nome] |= ufs
        self.ruas_cep: dict[tuple[str, str], dict[str, tuple[str, str]]] = defaultdict(dict)
        self.ceps_gerais: dict[tuple[str, str], str] = {}
        for cep, uf, cidade, bairro, rua in self.linhas:
            if rua:
                self.ruas_cep[(uf, text.dobrar(cidade))].setdefault(rua, (cep, bairro))
            elif not bairro and cep.endswith("000"):
                self.ceps_gerais.setdefault((uf, text.dobrar(cidade)), cep)
        # Names of other places a street may carry: UFs and municípios of Brazil.
        self.lugares = self.t.nomes_uf | set(self.t.homonimos)
        self.ruas: list[Rua] = []
        self.casos: list[dict[str, Any]] = []
        self.suburbios: dict[tuple[str, str], tuple[float, float]] = {}
        self.escolas: set[str] = set()

    # -- where each street lies ------------------------------------------------------------

    def bairros_de(self, municipio: str) -> dict[str, Bairro]:
        return {text.dobrar(b.nome): b for b in self.t.bairros.values() if b.municipio == municipio}

    def escolher_ruas(self) -> None:
        for uf, cidade, codigo, quantas in territorio.MUNICIPIOS:
            self.t.nome_osm[codigo] = cidade
            bairros = self.bairros_de(codigo)
            candidatas: list[Rua] = []
            for nome, (cep, bairro) in sorted(self.ruas_cep[(uf, text.dobrar(cidade))].items()):
                if not street.rua_valida(nome) or not bairro or int(cep[-3:]) >= 900:
                    continue
                if bairros and text.dobrar(bairro) not in bairros:
                    continue  # its IBGE bairro is unknown: where it lies is unknown
                candidatas.append(Rua(uf, cidade, codigo, cep, bairro, nome))
            self.rng.shuffle(candidatas)
            de_lugar = [r for r in candidatas if street.nome_de_lugar(r.nome, self.lugares)]
            avenidas = [r for r in candidatas if r.tipo == "Avenida"]
            outras = [r for r in candidatas if r.tipo in ("Travessa", "Alameda", "Praça")]
            ordem = de_lugar[:4] + avenidas[: quantas // 4] + outras[:2] + candidatas
            escolhidas: list[Rua] = []
            for rua in ordem:
                if len(escolhidas) == quantas:
                    break
                if all(rua.nome != r.nome for r in escolhidas):
                    escolhidas.append(rua)
            self._posicionar(codigo, bairros, escolhidas)
        # Large users of the homonymous small towns: the number is in CEP Aberto's name.
        for uf, cidade, codigo in territorio.HOMONIMOS:
            self.t.nome_osm[codigo] = cidade
            if (uf, cidade) in {(m[0], m[1]) for m in territorio.MUNICIPIOS}:
                continue
            for nome, (cep, bairro) in sorted(self.ruas_cep[(uf, text.dobrar(cidade))].items()):
                achado = _NUMERO_NO_NOME.match(nome.replace(", s/n", " 0"))
                if achado is None or not street.rua_valida(achado["nome"]):
                    continue
                rua = Rua(uf, cidade, codigo, cep, bairro or "Centro", achado["nome"])
                if achado["numero"] != "0":
                    rua.numeros.append(achado["numero"])
                self._posicionar(codigo, {}, [rua])
                break

    def _posicionar(self, codigo: str, bairros: dict[str, Bairro], ruas: list[Rua]) -> None:
        municipio = self.t.municipios[codigo]
        dentro_mun = municipio.geometria.buffer(-_MARGEM_MUNICIPIO)
        por_uc: dict[str, list[Rua]] = defaultdict(list)
        areas: dict[str, tuple[BaseGeometry, tuple[float, float]]] = {}
        for rua in ruas:
            bairro = bairros.get(text.dobrar(rua.bairro))
            if bairro is not None:
                area = bairro.geometria.buffer(-_MARGEM_BAIRRO).intersection(dentro_mun)
                ancora = bairro.geometria.representative_point()
                areas[bairro.codigo] = (area, (ancora.x, ancora.y))
                por_uc[bairro.codigo].append(rua)
            else:
                sede = municipio.sede or (
                    municipio.geometria.representative_point().x,
                    municipio.geometria.representative_point().y,
                )
                caixa = shapely.box(
                    sede[0] - _RAIO_SEDE, sede[1] - _RAIO_SEDE,
                    sede[0] + _RAIO_SEDE, sede[1] + _RAIO_SEDE,
                )  # fmt: skip
                areas[codigo] = (dentro_mun.intersection(caixa), sede)
                por_uc[codigo].append(rua)
        for uc in sorted(por_uc):
            area, ancora = areas[uc]
            lista = sorted(por_uc[uc], key=lambda r: r.nome)
            # Streets of one CEP bairro side by side (its suburb node among them).
            lista.sort(key=lambda r: text.dobrar(r.bairro))
            origens = street.origens(area, ancora, len(lista))
            for rua, (x, y) in zip(lista, origens, strict=False):
                rua.uc, rua.x0, rua.y = uc, x, y
                assert self.uc_do_ponto(codigo, rua.ponto()) == uc, rua.nome
                self.ruas.append(rua)
                chave = (codigo, text.dobrar(rua.bairro))
                if chave not in self.suburbios and _tem_suburbio(rua.bairro):
                    if uc != codigo:
                        p = self.t.bairros[uc].geometria.representative_point()
                        self.suburbios[chave] = (round(p.x, 7), round(p.y, 7))
                    else:
                        self.suburbios[chave] = rua.ponto(0.5, -street.PASSO_Y / 2)

    def uc_do_ponto(self, municipio: str, ponto: tuple[float, float]) -> str:
        p = shapely.Point(ponto)
        for b in self.t.bairros.values():
            if b.municipio == municipio and b.geometria.contains(p):
                return b.codigo
        assert self.t.municipios[municipio].geometria.contains(p)
        return municipio

    # -- helpers for the cases -------------------------------------------------------------

    def numero(self, rua: Rua, *, grande: bool = False) -> str:
        while True:
            n = str(self.rng.randint(1000, 3999) if grande else self.rng.randint(10, 999))
            if n not in rua.numeros:
                rua.numeros.append(n)
                return n

    def sufixo_uf(self, uf: str) -> str:
        return self.rng.choice((" - ", "/", ", ", " ", "-")) + uf

    def lugar(self, rua: Rua) -> str:
        return rua.cidade + self.sufixo_uf(rua.uf)

    def escola(self, rua: Rua) -> str:
        """A school beside the street, named after someone another town names a street for."""
        if rua.escola is None:
            outras = [
                r
                for r in self.ruas
                if r.municipio != rua.municipio
                and len(r.titulo.split()) >= 2
                and r.titulo[0].isupper()
                and not street.nome_de_lugar(r.nome, self.lugares)
            ]
            while True:
                honra = self.rng.choice(outras).titulo
                nome = f"Escola {self.rng.choice(('Estadual', 'Municipal'))} {honra}"
                if nome not in self.escolas:
                    break
            self.escolas.add(nome)
            rua.escola = nome
        return rua.escola

    def caso(
        self,
        categoria: str,
        entidades: dict[str, str],
        esperado: dict[str, str | None],
        *,
        uf: str | None,
        gps: tuple[float, float] | None = None,
    ) -> None:
        n = sum(1 for c in self.casos if c["categoria"] == categoria) + 1
        self.casos.append(
            {
                "id": f"{categoria}-{n:03d}",
                "categoria": categoria,
                "uf": uf,
                "payload": {
                    "entidades_extraidas": entidades,
                    "coordenadas_validadas": (
                        None if gps is None else {"lat": gps[1], "lng": gps[0]}
                    ),
                },
                "esperado": esperado,
            }
        )

    def escrito(
        self, categoria: str, rua: Rua, texto: str, numero: str | None, *, uf: bool = False
    ) -> None:
        """A case naming this street (with this number, or none): endereco at the street,
        unless the text names no UF and another município of that name has the street too
        (then nothing decides between them)."""
        esperado = esperado_numero(rua) if numero else esperado_logradouro(rua)
        if not uf and self.onde_existe(rua.nome, rua.cidade) != {rua.uf}:
            esperado = dict(NENHUM)
        self.caso(categoria, {"endereco": texto}, esperado, uf=rua.uf)

    def onde_existe(self, rua: str, cidade: str) -> set[str]:
        """The UFs whose município of this name has this street, as CEP Aberto or the OSM
        file knows it; a name used in one UF only is there."""
        ufs = self.ufs_do_nome[text.dobrar(cidade)]
        if len(ufs) == 1 and self.t.homonimos[text.dobrar(cidade)] <= 1:
            return set(ufs)
        achadas = set()
        for uf in ufs:
            if any(
                text.dobrar(n) == text.dobrar(rua) for n in self.ruas_cep[(uf, text.dobrar(cidade))]
            ):
                achadas.add(uf)
        achadas |= {
            r.uf
            for r in self.ruas
            if text.dobrar(r.cidade) == text.dobrar(cidade) and r.nome == rua
        }
        return achadas

    def ruas_em_ordem(self, filtro: Callable[[Rua], bool] | None = None) -> Iterator[Rua]:
        """The streets in a seeded order, round and round (each category its own)."""
        principais = {m[2] for m in territorio.MUNICIPIOS}
        lista = [
            r for r in self.ruas if r.municipio in principais and (filtro is None or filtro(r))
        ]
        if not lista:
            raise ValueError("no street of the corpus fits this category")
        self.rng.shuffle(lista)
        while True:
            yield from lista


def _tem_suburbio(bairro: str) -> bool:
    """Two bairros in three have a place=suburb node (stable: by name, not by order)."""
    return sum(text.dobrar(bairro).encode()) % 3 != 0


# The answers expected of D-2 (d2/bench/address_corpus.py's docstring gives the rules).


def esperado_numero(rua: Rua) -> dict[str, str | None]:
    return {"uc": rua.uc, "metodo": "endereco", "confianca": "media", "precisao": "numero"}


def esperado_logradouro(rua: Rua) -> dict[str, str | None]:
    return {"uc": rua.uc, "metodo": "endereco", "confianca": "media", "precisao": "logradouro"}


def esperado_inferencia(uc: str, precisao: str) -> dict[str, str | None]:
    return {"uc": uc, "metodo": "inferencia", "confianca": "baixa", "precisao": precisao}


NENHUM: dict[str, str | None] = {"uc": None, "metodo": None, "confianca": None, "precisao": None}
