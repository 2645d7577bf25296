"""The evidence's order when a place is decided (d2.geocoder.places.decision): what a
citizen drew never chooses a município, a place said as such outranks one named in
passing, the município named last is the city, and a CEP decides over the names inside a
street and disagrees with a município named elsewhere."""

from __future__ import annotations

from d2.geocoder import fields, parser, question
from d2.geocoder.places import decision
from d2.geocoder.places.gazetteer import Gazetteer, NomeCep
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate, Reason

CAMPO_LARGO = Candidate("mun-cl", MUNICIPIO, "Campo Largo", ("mun-cl", "uf-pr"), 0, 1, 2)


def _entender(texto: str) -> fields.Entendido:
    endereco = question.do_payload({"entidades_extraidas": {"endereco": texto}})
    assert endereco is not None
    return parser.entender(endereco)


def test_decision__a_drawn_name_never_chooses_a_municipio_and_may_be_its_bairro() -> None:
    """A citizen drew a bairro "Vila Aurora" inside Campo Largo; Vila Aurora is also a
    município. "Rua X, 100, Campo Largo, Vila Aurora": the drawing does not turn the
    município named last into a bairro of the one named first."""
    e = _entender("Rua X, 100, Campo Largo, Vila Aurora")
    vila_municipio = Candidate("mun-va", MUNICIPIO, "Vila Aurora", ("mun-va", "uf-pr"), 1, 1, 2)
    comunitario = Candidate("b-va", BAIRRO, "Vila Aurora", ("b-va", "mun-cl", "uf-pr"), 1, 1, 2)
    nomes = [CAMPO_LARGO, vila_municipio, comunitario]
    # Read as an official bairro, the drawing makes the município a bairro of Campo Largo.
    assert decision.decidir(e, nomes, None, Gazetteer([], set())).municipio == CAMPO_LARGO
    # As what it is, a drawing, it takes no part: the município named last.
    g = Gazetteer([], set(), comunitarios={"b-va"})
    ctx = decision.decidir(e, nomes, None, g)
    assert (ctx.municipio, ctx.bairro) == (vila_municipio, None)
    # Inside the município decided by the official names, it is the bairro.
    e = _entender("Rua X, 100, Vila Aurora, Campo Largo")
    comunitario = Candidate("b-va", BAIRRO, "Vila Aurora", ("b-va", "mun-cl", "uf-pr"), 0, 1, 2)
    campo = Candidate("mun-cl", MUNICIPIO, "Campo Largo", ("mun-cl", "uf-pr"), 1, 1, 2)
    ctx = decision.decidir(e, [campo, comunitario], None, g)
    assert (ctx.municipio, ctx.bairro) == (campo, comunitario)


def test_decision__a_place_said_as_such_outranks_one_named_in_passing() -> None:
    """ "sentido Distrito de Lagoa da Prata, zona rural de Tartarugalzinho": the district is
    none of the municípios named; the one after "zona rural de" is."""
    e = _entender("A estrada que vai pro Distrito de Lagoa da Prata, zona rural de Tartarugalzinho")
    lagoa = Candidate("mun-lp", MUNICIPIO, "Lagoa da Prata", ("mun-lp", "uf-mg"), 0, 8, 10)
    tarta = Candidate("mun-ta", MUNICIPIO, "Tartarugalzinho", ("mun-ta", "uf-ap"), 1, 4, 4)
    assert e.lugares[1].split()[3] == "TARTARUGALZINHO"
    assert decision.decidir(e, [lagoa, tarta], None).municipio == tarta
    e = _entender("zona rural de Tartarugalzinho, sentido Distrito de Lagoa da Prata")
    lagoa = Candidate("mun-lp", MUNICIPIO, "Lagoa da Prata", ("mun-lp", "uf-mg"), 1, 4, 6)
    tarta = Candidate("mun-ta", MUNICIPIO, "Tartarugalzinho", ("mun-ta", "uf-ap"), 0, 4, 4)
    assert decision.decidir(e, [lagoa, tarta], None).municipio == tarta


def test_decision__a_ufs_name_after_another_town_is_the_uf() -> None:
    """ "Escrevo de Itatiaia, Rio de Janeiro": the state after a town, not the city."""
    e = _entender("Escrevo de Itatiaia, Rio de Janeiro. No bairro Centro a coleta parou")
    itatiaia = Candidate("mun-it", MUNICIPIO, "Itatiaia", ("mun-it", "uf-rj"), 0, 3, 3)
    rio = Candidate("mun-rio", MUNICIPIO, "Rio de Janeiro", ("mun-rio", "uf-rj"), 1, 1, 3)
    rj = Candidate("uf-rj", UF, "Rio de Janeiro", ("uf-rj",), 1, 1, 3)
    ctx = decision.decidir(e, [itatiaia, rio, rj], None)
    assert ctx.municipio == itatiaia


def test_decision__a_text_that_names_no_place_gets_none() -> None:
    e = _entender("Cadê a esperança de ver essa rua arrumada? Já perdi.")
    esperanca = Candidate("mun-esp", MUNICIPIO, "Esperança", ("mun-esp", "uf-pb"), 0, 3, 3)
    ctx = decision.decidir(e, [esperanca], None)
    assert (ctx.municipio, ctx.motivo) == (None, Reason.NAO_ENCONTRADO)


def test_decision__a_name_at_a_streets_end_the_cep_places_elsewhere_is_the_streets() -> None:
    """ "… da Rua Vitor Viana. CEP 79280-000": Viana (ES) at the street's end is cut from it
    as a place where nothing says otherwise; a CEP d2.ceps places in Porto Murtinho (MS)
    says it is the street's own name (a person's), not a second place against the CEP."""
    viana = Candidate("mun-viana", MUNICIPIO, "Viana", ("mun-viana", "uf-es"), decision.CAUDA, 2, 2)
    porto = Candidate("mun-pm", MUNICIPIO, "Porto Murtinho", ("mun-pm", "uf-ms"), -1, 0, 0)
    cep = decision.Cep("79280000", "MS", "Porto Murtinho", "", "", porto, None)
    texto = "Buraco ao lado do número 287 da Rua Vitor Viana. CEP 79280-000"
    e = _entender(texto)
    assert e.logradouro == "VITOR VIANA"
    ctx = decision.decidir(e, [viana], cep, Gazetteer([], set()))
    assert (ctx.municipio, ctx.motivo, e.logradouro) == (porto, None, "VITOR VIANA")
    # Without the CEP, the name closing the street is the place, cut from it.
    e = _entender(texto.replace(". CEP 79280-000", ""))
    ctx = decision.decidir(e, [viana], None, Gazetteer([], set()))
    assert (ctx.municipio, e.logradouro) == (viana, "VITOR")
    # A CEP read only by its range gives way: the name is cut and decides against it.
    faixa = decision.Cep("79280000", "MS", "Porto Murtinho", "", "", porto, None, faixa=True)
    e = _entender(texto)
    ctx = decision.decidir(e, [viana], faixa, Gazetteer([], set()))
    assert (ctx.municipio, e.logradouro) == (viana, "VITOR")


def test_decision__a_bairro_glued_to_its_municipio_at_the_end_is_read() -> None:
    """Lower case and no separator, as a hurried writer puts them: "boca do jari laranjal
    do jari" names Laranjal do Jari where d2.cep_nomes knows "boca do jari" as one of its
    bairros (a name after another word is otherwise none), and "… 10 centro tres lagoas"
    the bairro Centro of the município read just after it."""
    lj = Candidate("m-lj", MUNICIPIO, "Laranjal do Jari", ("m-lj", "uf-ap"), 0, 4, 6)
    e = _entender("boca do jari laranjal do jari")
    bairro_dele = Gazetteer([NomeCep(0, 1, 3, "bairro", "m-lj", 5)], set())
    assert decision.decidir(e, [lj], None, bairro_dele).municipio == lj
    assert decision.decidir(e, [lj], None, Gazetteer([], set())).municipio is None
    de_outro = Gazetteer([NomeCep(0, 1, 3, "bairro", "m-outro", 5)], set())
    assert decision.decidir(e, [lj], None, de_outro).municipio is None

    tl = Candidate("m-tl", MUNICIPIO, "Três Lagoas", ("m-tl", "uf-ms"), 0, 2, 3)
    centro = Candidate("b-tl", BAIRRO, "Centro", ("b-tl", "m-tl", "uf-ms"), 0, 1, 1)
    centro_de_outro = Candidate("b-x", BAIRRO, "Centro", ("b-x", "m-x", "uf-ms"), 0, 1, 1)
    e = _entender("rua zuleide perez tabox 10 centro tres lagoas")
    ctx = decision.decidir(e, [tl, centro, centro_de_outro], None, Gazetteer([], set()))
    assert (ctx.municipio, ctx.bairro) == (tl, centro)
