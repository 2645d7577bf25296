"""The names held in the process for misspellings (d2.geocoder.places.names), on rows written
here as the query geocoder_names returns them: what is proposed, and what never is (the
same names against the real territory: tests/integration/geocoder/test_names.py)."""

from __future__ import annotations

from d2.geocoder.places import gazetteer, names
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate


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


def test_a_misspelling_is_proposed_beside_names_written_exactly_but_not_for_words() -> None:
    # Itaporã is written exactly: the misspelt Dourados is proposed all the same (whether
    # a reader reads either is decided with their positions: gazetteer.aproximados).
    assert _ids(["DUORADOS", "ITAPORA"]) == {("mun-dou", 0, 1, 1)}
    assert {uc for uc, *_ in _ids(["DUORADOS", "MS"])} == {"mun-dou"}
    # Four letters or fewer are not read as a misspelling ("Uma" is not Una), nor a word
    # of the language ("calçada" is not Calçado, "o cara" not Ocara).
    assert _ids(["UMA"]) == set()
    assert _ids(["CALCADA QUEBRADA"]) == set()


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


def test_a_name_written_with_its_apostrophe_or_hyphen_another_way_is_that_name() -> None:
    """As people write Santa Clara d'Oeste, Olho d'Água, Xique-Xique: the apostrophe as a
    space, "d'" as "do", the hyphen dropped; read as the name itself (exato)."""
    nomes = names.Nomes.de_linhas(
        ("teste",),
        [
            _linha("mun-scl", MUNICIPIO, "Santa Clara d'Oeste", "uf-sp"),
            _linha("mun-oda", MUNICIPIO, "Olho d'Água do Casado", "uf-al"),
            _linha("mun-xx", MUNICIPIO, "Xique-Xique", "uf-ba"),
        ],
    )
    for escrito, uc in (
        ("SANTA CLARA DO OESTE", "mun-scl"),
        ("SANTA CLARA D OESTE", "mun-scl"),
        ("OLHO D AGUA DO CASADO", "mun-oda"),
        ("XIQUEXIQUE", "mun-xx"),
    ):
        achados = nomes.propostos([escrito])
        assert [(c.unidade_civica_id, c.exato) for c in achados] == [(uc, True)], escrito


def test_a_longer_name_misspelt_around_a_shorter_one_is_proposed() -> None:
    """ "Pedra Branca do Amaapari" holds Pedra Branca (written exactly): the longer name is
    proposed for the words around it."""
    nomes = names.Nomes.de_linhas(
        ("teste",),
        [
            _linha("mun-pb", MUNICIPIO, "Pedra Branca", "uf-ce"),
            _linha("mun-pba", MUNICIPIO, "Pedra Branca do Amapari", "uf-ap"),
        ],
    )
    achados = {
        (c.unidade_civica_id, c.inicio, c.fim)
        for c in nomes.propostos(["EM PEDRA BRANCA DO AMAAPARI"])
    }
    assert ("mun-pba", 2, 5) in achados
    escolhidos = gazetteer.aproximados(
        [
            *nomes.propostos(["EM PEDRA BRANCA DO AMAAPARI"]),
            Candidate("mun-pb", MUNICIPIO, "Pedra Branca", ("mun-pb", "uf-ce"), 0, 2, 3),
        ],
        ["EM PEDRA BRANCA DO AMAAPARI"],
        {MUNICIPIO},
    )
    assert "mun-pba" in {c.unidade_civica_id for c in escolhidos}
