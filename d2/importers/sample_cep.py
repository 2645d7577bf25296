"""A CEP Aberto dump of the sample territory (d2.importers.sample), for `d2 cep import`
in the demo and the tests: the CEPs of the streets the sample OSM file has
(d2.importers.sample_osm, the same CEPs where it carries addr:postcode), each in the
bairro its street lies in; a CEP for a street OSM does not have (the geocoder then falls
back on its bairro); each município's general CEP (no street); and three localities that
show how linking goes: a district named after its município, a district found by its CEP
range, and a locality of a UF the territory does not have.

The files are CEP Aberto's: headerless CSV, `cep, logradouro, complemento, bairro,
cidade_id, estado_id` per UF (`<uf>.cepaberto_parte_1.csv`), with cities.csv and
states.csv.
"""

from __future__ import annotations

import csv
from pathlib import Path

import shapely

from d2.importers import sample, sample_osm

# CD_MUN → the first five digits of its CEPs.
FAIXAS = {
    "1100015": "78010",
    "1100023": "78200",
    "1100031": "78250",
    "1100049": "78300",
    "2100055": "65010",
    "2100063": "65100",
    "2200079": "64500",
    "2200087": "64600",
}
# A street OSM does not have, in a bairro of Vila Aurora: its CEP leads to the bairro.
SEM_OSM = ("78010-500", "Rua Projetada A", "1100015002")  # Jardim das Flores
# Localities that are not municípios: (nome, UF's CD, CEP).
DISTRITOS = (
    ("Aurora do Norte", "11", "78010-990"),  # its CEP range is Vila Aurora's
    ("Ribeirinha (Nova Boreal)", "21", "65090-000"),  # its name gives its município
    ("Brasília", "53", "70000-000"),  # a UF the sample does not have
)
_UF_FORA = {"53": ("Distrito Federal", "DF")}


def _bairro(codigo: str, ponto: shapely.Point) -> str:
    """The name of the sample bairro holding ponto, or "Centro" where the município has
    none (CEP Aberto names a bairro where IBGE draws none)."""
    for mun, nome, geometria in sample.bairros().values():
        if mun == codigo and geometria.contains(ponto):
            return nome
    return "Centro"


def linhas() -> list[tuple[str, str, str, str]]:
    """(CEP, street, bairro, CD_MUN or a locality's name) of every sample CEP."""
    saida: list[tuple[str, str, str, str]] = []
    bairros = sample.bairros()
    for codigo, (_, (lng, lat), ruas) in sample_osm.LUGARES.items():
        faixa = FAIXAS[codigo]
        usados = {r.cep for r in ruas if r.cep}
        for k, rua in enumerate(ruas):
            pontos = sample_osm.pontos_da_rua(lng, lat, k)
            cep = rua.cep or f"{faixa}-{100 * (k + 2):03d}"
            while cep in usados and rua.cep is None:
                cep = f"{faixa}-{int(cep[-3:]) + 1:03d}"
            usados.add(cep)
            saida.append((cep, rua.nome, _bairro(codigo, shapely.Point(pontos[1])), codigo))
        if f"{faixa}-000" not in usados:
            saida.append((f"{faixa}-000", "", "", codigo))
    cep_sem_osm, rua_sem_osm, bairro_sem_osm = SEM_OSM
    mun, nome_bairro, _ = bairros[bairro_sem_osm]
    saida.append((cep_sem_osm, rua_sem_osm, nome_bairro, mun))
    for nome, _, cep in DISTRITOS:
        saida.append((cep, "", "", nome))
    return saida


def write_dump(pasta: Path) -> Path:
    """Write the dump into pasta (created if missing); returns pasta, what `d2 cep import`
    takes."""
    pasta.mkdir(parents=True, exist_ok=True)
    municipios = sample.municipios()
    ufs = {cd: (nome, sigla) for cd, (nome, sigla, _) in sample.UFS.items()} | _UF_FORA
    estados = {cd: str(i + 1) for i, cd in enumerate(ufs)}
    cidades: dict[str, tuple[str, str]] = {}  # CD_MUN or name → (cidade_id, UF's CD)
    for codigo, (nome, _) in municipios.items():
        cidades[codigo] = (nome, codigo[:2])
    for nome, uf, _ in DISTRITOS:
        cidades[nome] = (nome, uf)
    ids = {chave: str(i + 1) for i, chave in enumerate(cidades)}
    with (pasta / "states.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([estados[cd], nome, sigla] for cd, (nome, sigla) in ufs.items())
    with (pasta / "cities.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(
            [ids[chave], nome, estados[uf]] for chave, (nome, uf) in cidades.items()
        )
    por_uf: dict[str, list[list[str]]] = {}
    for cep, rua, bairro, chave in linhas():
        uf = cidades[chave][1]
        por_uf.setdefault(uf, []).append(
            [cep.replace("-", ""), rua, "", bairro, ids[chave], estados[uf]]
        )
    for uf, rows in por_uf.items():
        nome = f"{ufs[uf][1].lower()}.cepaberto_parte_1.csv"
        with (pasta / nome).open("w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows(rows)
    return pasta
