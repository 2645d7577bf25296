"""The names held in the process for misspellings (d2.geocoder.places.names), on rows written
here as the query geocoder_names returns them: what is proposed, and what never is (the
same names against the real territory: tests/integration/geocoder/test_names.py)."""

from __future__ import annotations

from d2.geocoder.places import gazetteer, names
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF


def _linha(uc: str, nivel: int, nome: str, *cadeia: str) -> dict[str, object]:
    return {
        "unidade_civica_id": uc,
        "nivel": nivel,
        "nome": nome,
        "nome_busca": " ".join(gazetteer.palavras(nome)),
        "cadeia_ucs": [uc, *cadeia],
    }


NOMES = names.Nomes.de_linhas(
    ("teste",),
    [
        _linha("uf-ms", UF, "Mato Grosso do Sul"),
        _linha("mun-dou", MUNICIPIO, "Dourados", "uf-ms"),
        _linha("mun-cg", MUNICIPIO, "Campo Grande", "uf-ms"),
        _linha("mun-cg-al", MUNICIPIO, "Campo Grande", "uf-al"),
        _linha("mun-ita", MUNICIPIO, "Itaporã", "uf-ms"),
        _linha("mun-una", MUNICIPIO, "Una", "uf-ba"),
        _linha("b-mc", BAIRRO, "Monte Castelo", "mun-cg", "uf-ms"),
    ],
)


def _ids(segmentos: list[str]) -> set[tuple[str, int, int, int]]:
    return {(c.unidade_civica_id, c.segmento, c.inicio, c.fim) for c in NOMES.propostos(segmentos)}


def test_a_run_of_words_that_is_no_name_is_compared_with_every_municipio_and_uf() -> None:
    # "Duorados MS" is one segment: its first word is the misspelt name.
    assert ("mun-dou", 0, 1, 1) in _ids(["DUORADOS MS", "MS"])
    assert all(not c.exato for c in NOMES.propostos(["DUORADOS MS", "MS"]))
    # Homonyms are both proposed, for the same words.
    assert {("mun-cg", 1, 1, 2), ("mun-cg-al", 1, 1, 2)} <= _ids(["CENTRO", "CAMPO GRNADE"])


def test_nothing_is_proposed_at_a_level_written_exactly_nor_for_short_words() -> None:
    # Itaporã is written exactly: no misspelt município beside it.
    assert _ids(["DUORADOS", "ITAPORA"]) == set()
    # The UF's sigla alone is a UF written exactly: only municípios are proposed.
    assert {uc for uc, *_ in _ids(["DUORADOS", "MS"])} == {"mun-dou"}
    # Four letters or fewer are not read as a misspelling ("Uma" is not Una).
    assert _ids(["UMA"]) == set()


def test_a_hostile_texts_runs_are_bounded() -> None:
    """At most 24 runs of words are compared, the last segments' first: the município
    is named last."""
    onze = "ABCDE FGHIJ KLMNO PQRST UVXZA BCDEF GHIJK LMNOP QRSTU VXZAB CDEFG"
    assert _ids([onze] * 7 + [onze + " DUORADOS"]) == {("mun-dou", 7, 12, 12)}
    # Named in the first of eight long segments: past the runs compared.
    assert _ids([onze + " DUORADOS"] + [onze] * 7) == set()
    assert _ids([onze + " DUORADOS"]) == {("mun-dou", 0, 12, 12)}


def test_a_misspelt_bairro_is_read_from_a_whole_segment_of_the_municipio_read() -> None:
    lugares = ["MONTE CATSELO", "CAMPO GRNADE", "MS"]
    cg = next(c for c in NOMES.propostos(lugares) if c.unidade_civica_id == "mun-cg")
    bairro = NOMES.bairro_aproximado(cg, [cg], lugares)
    assert bairro is not None and (bairro.nome, bairro.exato) == ("Monte Castelo", False)
    # Another município's bairros are not this one's.
    dou = next(c for c in NOMES.propostos(["DUORADOS"]) if c.unidade_civica_id == "mun-dou")
    assert NOMES.bairro_aproximado(dou, [dou], ["MONTE CATSELO", "DUORADOS"]) is None
    # Part of a segment is not a bairro's name.
    assert NOMES.bairro_aproximado(cg, [cg], ["PARQUE MONTE CATSELO NORTE", *lugares[1:]]) is None
