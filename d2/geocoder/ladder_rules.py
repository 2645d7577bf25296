"""What a rung's answer is worth: which of a search's matches is credible for one address
(d2.geocoder.ladder asks, d2.geocoder.ladder_steps says what was asked), and the answer
it fills (d2.geocoder.answer.Geocoding).

A Nominatim answer is credible only inside the place known (the município, or exactly
one of the homonyms, or one município of the UF named), or — when the text names no
place — inside the município of the CEP that was asked. Its precision: numero (a house
with the number asked, or a POI), logradouro (the street), cep (the CEP's street or code).
SQL answers are inferences: bairro, municipio, uf.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg.rows import dict_row

from d2 import db
from d2.geocoder.answer import Geocoding
from d2.geocoder.ladder_steps import Avaliacao, Passo, Tentativa
from d2.geocoder.nominatim import search
from d2.geocoder.places import decision
from d2.territorio import resolver


@dataclass
class Lugar:
    """Where a match lies: its UC and chain, and the município holding it."""

    resolucao: resolver.Resolucao
    municipio: str | None


def lugares(conn: db.Connection, matches: list[search.Match]) -> list[Lugar | None]:
    """Each match placed, in order (one statement); None where no UC holds it."""
    if not matches:
        return []
    saida: list[Lugar | None] = [None] * len(matches)
    with db.mapped_errors(), conn.cursor(row_factory=dict_row) as cur:
        for row in cur.execute(
            db.q("geocoder_points_places"),
            {"lats": [float(m.lat) for m in matches], "lngs": [float(m.lng) for m in matches]},
        ):
            saida[row["ordem"] - 1] = Lugar(
                resolver.Resolucao(
                    row["unidade_civica_id"],
                    row["nivel_minimo_resolvido"],
                    tuple(row["cadeia_ucs"] or ()),
                ),
                row["municipio"],
            )
    return saida


def _recipiente(ctx: decision.Contexto, passo: Passo, lugar: Lugar) -> str | None:
    """Which of the places allowed holds this point (None: none)."""
    cadeia = lugar.resolucao.cadeia_ucs
    if ctx.municipio is not None:
        return (
            ctx.municipio.unidade_civica_id if ctx.municipio.unidade_civica_id in cadeia else None
        )
    for homonimo in ctx.homonimos:
        if homonimo.unidade_civica_id in cadeia:
            return homonimo.unidade_civica_id
    if ctx.homonimos:
        return None
    if ctx.uf is not None:
        return lugar.municipio if ctx.uf.unidade_civica_id in cadeia else None
    if passo == Passo.CEP:  # no place named: the CEP asked vouches for where it is
        return lugar.municipio or lugar.resolucao.unidade_civica_id
    return None


# What a POI named as the address may be, by Nominatim's class of the match (OSM's key):
# a building or an area people go to. Not a place, boundary or landuse (a bairro or a
# town by another name: the SQL steps answer those), nor a street.
_CLASSES_POI = frozenset(
    "amenity leisure shop tourism building healthcare office historic aeroway railway "
    "public_transport club sport".split()
)
# A park is an area (rank 24 in Nominatim); a town or bairro is below that.
_RANK_POI = 22


def _precisao(tentativa: Tentativa, m: search.Match) -> str | None:
    """The precision of a match for the step that asked, or None when it is not an
    answer to that question (a city where a street was asked)."""
    if tentativa.passo == Passo.POI:
        if m.categoria not in _CLASSES_POI or m.rank < _RANK_POI:
            return None
        return "numero" if m.rank >= 30 else "logradouro"
    if tentativa.passo == Passo.CEP:
        return "cep" if m.tipo == "postcode" or m.rank >= search.RANK_RUA else None
    if tentativa.passo == Passo.TEXTO_LIVRE and m.tipo == "postcode":
        return "cep"
    if m.rank < search.RANK_RUA:
        return None
    if tentativa.passo == Passo.REFERENCIA:
        return "numero" if m.rank >= 30 else "logradouro"
    if tentativa.com_numero and m.de_numero:
        return "numero"
    return "cep" if tentativa.passo == Passo.CEP_RUA else "logradouro"


def avaliar(
    ctx: decision.Contexto,
    tentativa: Tentativa,
    achados: tuple[search.Match, ...],
    lugares: list[Lugar | None],
    geocoding: Geocoding,
) -> Avaliacao:
    """Decide one search's matches for one address: an answer (filled into geocoding),
    or what the ladder should know to go on."""
    if not achados:
        return Avaliacao(vazio=True)
    crediveis: list[tuple[str, search.Match, Lugar, str]] = []
    for m, lugar in zip(achados, lugares, strict=True):
        if lugar is None or m.pais not in (None, "br"):
            continue
        precisao = _precisao(tentativa, m)
        recipiente = _recipiente(ctx, tentativa.passo, lugar)
        if precisao is not None and recipiente is not None:
            crediveis.append((recipiente, m, lugar, precisao))
    if not crediveis:
        return Avaliacao()
    # Where the place is not one município (homonyms, a UF), matches in one of them
    # decide only if Nominatim showed them all: a full page may hide the others.
    pagina_cheia = (
        ctx.municipio is None
        and tentativa.passo != Passo.CEP
        and tentativa.consulta is not None
        and len(achados) >= tentativa.consulta.limite
    )
    if len({c[0] for c in crediveis}) > 1 or pagina_cheia:
        return Avaliacao(ambiguo=True)
    if tentativa.passo == Passo.POI and len({c[2].resolucao for c in crediveis}) > 1:
        # Several places of that name in the município, in different UCs: not that
        # POI's bairro, but still the município (the SQL steps answer it).
        return Avaliacao()
    _, m, lugar, precisao = crediveis[0]
    geocoding.resolucao = lugar.resolucao
    geocoding.lat, geocoding.lng = m.lat, m.lng
    geocoding.metodo, geocoding.confianca = "endereco", "media"
    geocoding.precisao, geocoding.passo = precisao, str(tentativa.passo)
    geocoding.nome = m.nome
    return Avaliacao()
