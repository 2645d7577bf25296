"""An address read as a whole (d2.geocoder.places.gazetteer, through
d2.geocoder.places.decision.decidir): what d2.ceps knows of each município named (its
bairros and streets, d2.cep_nomes) tells a word of a bairro's name from a second place,
homonyms apart, and the reader's município from a stray word; misspellings ranked with
rapidfuzz, never against an exact name."""

from __future__ import annotations

import time

from d2.geocoder import fields, parser, question
from d2.geocoder.places import decision, gazetteer
from d2.geocoder.places.gazetteer import Gazetteer, NomeCep
from d2.geocoder.places.inference import Candidate


def _entender(endereco: str) -> fields.Entendido:
    e = question.do_payload({"entidades_extraidas": {"endereco": endereco}})
    assert e is not None
    return parser.entender(e)


def _nome(
    uc: str,
    nivel: int,
    nome: str,
    cadeia: tuple[str, ...],
    seg: int,
    ini: int = 1,
    fim: int = 1,
    exato: bool = True,
) -> Candidate:
    return Candidate(uc, nivel, nome, (uc, *cadeia), seg, ini, fim, exato)


RJ_UF = _nome("uf-rj", 5, "Rio de Janeiro", (), 1, 1, 3)
RIO = _nome("mun-rio", 4, "Rio de Janeiro", ("uf-rj",), 1, 1, 3)
BARRA = _nome("mun-barra", 4, "Barra", ("uf-ba",), 0, 1, 1)  # Barra, BA
DADOS = {(m, t) for m in ("mun-rio", "mun-rb-ac", "mun-rb-mt") for t in ("bairro", "logradouro")}


def test_a_word_inside_a_bairro_of_the_municipio_named_is_not_a_place() -> None:
    e = _entender("Av. Lúcio Costa, 3150 - Barra da Tijuca, Rio de Janeiro")
    nomes = [BARRA, RIO, RJ_UF]
    # Without what d2.ceps knows: "Barra" inside the bairro's words is no place (an
    # ordinary word followed by more of the name), and Rio de Janeiro after a name is
    # its UF: the UF, no município guessed.
    ctx = decision.decidir(e, nomes, None)
    assert (ctx.municipio, ctx.uf, ctx.motivo) == (None, RJ_UF, None)
    barra_da_tijuca = NomeCep(0, 1, 3, "bairro", "mun-rio", 662)
    ctx = decision.decidir(e, nomes, None, Gazetteer([barra_da_tijuca], DADOS))
    assert (ctx.municipio, ctx.motivo, ctx.conflito) == (RIO, None, False)


def test_a_uf_name_inside_a_bairro_is_not_the_uf() -> None:
    e = _entender("Rua Margarida, 2280 - Praia do Amapá, Rio Branco - AC")
    rb = _nome("mun-rb-ac", 4, "Rio Branco", ("uf-ac",), 1, 1, 2)
    nomes = [_nome("uf-ap", 5, "Amapá", (), 0, 3, 3), rb, _nome("uf-ac", 5, "Acre", (), 2)]
    # A UF's name after "do" inside a longer name is no UF, d2.ceps or not.
    assert decision.decidir(e, nomes, None).municipio == rb
    praia = NomeCep(0, 1, 3, "bairro", "mun-rb-ac", 40)
    assert decision.decidir(e, nomes, None, Gazetteer([praia], DADOS)).municipio == rb


def test_names_that_hold_each_other_are_not_dropped() -> None:
    """Recife has a bairro Jardim São Paulo, São Paulo a street Recife: the street's
    name in a place segment covers nothing, and the bairro decides."""
    e = _entender("Jardim São Paulo, Recife")
    sp = _nome("mun-sp", 4, "São Paulo", ("uf-sp",), 0, 2, 3)
    recife = _nome("mun-rec", 4, "Recife", ("uf-pe",), 1)
    nomes = [sp, _nome("uf-sp", 5, "São Paulo", (), 0, 2, 3), recife]
    g = Gazetteer(
        [NomeCep(0, 1, 3, "bairro", "mun-rec", 229), NomeCep(1, 1, 1, "logradouro", "mun-sp", 5)],
        set(),
    )
    assert decision.decidir(e, nomes, None, g).municipio == recife
    # Two bairros holding each other's município: nothing is dropped, no guess.
    g = Gazetteer(
        [NomeCep(0, 1, 3, "bairro", "mun-rec", 229), NomeCep(1, 1, 1, "bairro", "mun-sp", 5)],
        set(),
    )
    assert gazetteer.cobertos(nomes, g, None) == nomes


def test_homonyms_are_told_apart_by_the_bairro_named() -> None:
    e = _entender("Bosque, Rio Branco")
    ac = _nome("mun-rb-ac", 4, "Rio Branco", ("uf-ac",), 1, 1, 2)
    mt = _nome("mun-rb-mt", 4, "Rio Branco", ("uf-mt",), 1, 1, 2)
    bosque = NomeCep(0, 1, 1, "bairro", "mun-rb-ac", 121)
    assert decision.decidir(e, [ac, mt], None).homonimos == [ac, mt]
    assert decision.decidir(e, [ac, mt], None, Gazetteer([bosque], DADOS)).municipio == ac
    # The other knows no bairro at all in d2.ceps (one general CEP): its lacking this
    # one says nothing, and there is no guess.
    so_ruas = {("mun-rb-mt", "logradouro")}
    ctx = decision.decidir(e, [ac, mt], None, Gazetteer([bosque], so_ruas))
    assert (ctx.municipio, ctx.homonimos) == (None, [ac, mt])
    # A bairro both have: no guess either.
    centro = [NomeCep(0, 1, 1, "bairro", m, 10) for m in ("mun-rb-ac", "mun-rb-mt")]
    assert decision.decidir(e, [ac, mt], None, Gazetteer(centro, DADOS)).municipio is None


def test_homonyms_are_told_apart_by_the_street_named() -> None:
    e = _entender("Rua Major Gualter, 784, Rio Branco")
    ac = _nome("mun-rb-ac", 4, "Rio Branco", ("uf-ac",), 0, 1, 2)
    mt = _nome("mun-rb-mt", 4, "Rio Branco", ("uf-mt",), 0, 1, 2)
    rua = NomeCep(gazetteer.RUA, 1, 1, "logradouro", "mun-rb-mt", 1)
    assert decision.decidir(e, [ac, mt], None, Gazetteer([rua], DADOS)).municipio == mt


def test_the_municipio_named_last_is_taken_when_the_text_supports_it() -> None:
    e = _entender("Rua Caçapava, 866 - Bom Retiro, Joinville")
    bom_retiro = _nome("mun-br", 4, "Bom Retiro", ("uf-sc",), 0, 1, 2)
    joinville = _nome("mun-jlle", 4, "Joinville", ("uf-sc",), 1)
    # Nothing known: the one named last, right after the bairro.
    ctx = decision.decidir(e, [bom_retiro, joinville], None)
    assert ctx.municipio == joinville
    # Its street is Joinville's: the reader's município.
    rua = NomeCep(gazetteer.RUA, 1, 1, "logradouro", "mun-jlle", 3)
    ctx = decision.decidir(e, [bom_retiro, joinville], None, Gazetteer([rua], set()))
    assert ctx.municipio == joinville
    # The same street in both: as much support for either, the one named last.
    ambas = [rua, NomeCep(gazetteer.RUA, 1, 1, "logradouro", "mun-br", 1)]
    ctx = decision.decidir(e, [bom_retiro, joinville], None, Gazetteer(ambas, set()))
    assert ctx.municipio == joinville
    # Only the one named first has it: no guess from the order of the names.
    so_antes = [NomeCep(gazetteer.RUA, 1, 1, "logradouro", "mun-br", 1)]
    ctx = decision.decidir(e, [bom_retiro, joinville], None, Gazetteer(so_antes, set()))
    assert (ctx.municipio, ctx.homonimos) == (None, [joinville])


def test_a_state_named_with_a_bairro_of_its_homonymous_capital_is_the_city() -> None:
    e = _entender("Inhoaíba, Rio de Janeiro")
    rio = _nome("mun-rio", 4, "Rio de Janeiro", ("uf-rj",), 1, 1, 3)
    uf = _nome("uf-rj", 5, "Rio de Janeiro", (), 1, 1, 3)
    assert decision.decidir(e, [rio, uf], None).uf == uf
    inhoaiba = NomeCep(0, 1, 1, "bairro", "mun-rio", 300)
    assert decision.decidir(e, [rio, uf], None, Gazetteer([inhoaiba], DADOS)).municipio == rio


def test_a_misspelling_is_ranked_and_never_stands_against_an_exact_name() -> None:
    e = _entender("Rua X, 10, Duorados")  # a transposition
    dourados = _nome("mun-dou", 4, "Dourados", ("uf-ms",), 0, 1, 1, exato=False)
    longe = _nome("mun-x", 4, "Douradoquara", ("uf-mg",), 0, 1, 1, exato=False)
    assert decision.decidir(e, [dourados, longe], None).municipio == dourados
    # Two names as near: none.
    e = _entender("Rua X, 10, Campo Graned")
    a = _nome("mun-a", 4, "Campo Grande", ("uf-ms",), 0, 1, 2, exato=False)
    b = _nome("mun-b", 4, "Campo Granda", ("uf-xx",), 0, 1, 2, exato=False)
    assert decision.decidir(e, [a, b], None).municipio is None
    # Beside a name written exactly, a near one is no second place.
    e = _entender("Rua X, 10, Duorados, Itaporã")
    itapora = _nome("mun-ita", 4, "Itaporã", ("uf-ms",), 1)
    ctx = decision.decidir(e, [dourados, itapora], None)
    assert (ctx.municipio, ctx.conflito) == (itapora, False)


def test_a_longer_name_misspelt_around_an_exact_one_is_the_place() -> None:
    # "Santo Antônnio do Caiuá": one edit from Santo Antônio do Caiuá (PR), three from
    # Santo Antônio do Tauá; Caiuá (SP), written exactly inside it, is its word.
    e = _entender("Rua X, 10, Santo Antônnio do Caiuá")
    caiua = _nome("mun-caiua", 4, "Caiuá", ("uf-sp",), 0, 4, 4)
    longo = _nome("mun-santo", 4, "Santo Antônio do Caiuá", ("uf-pr",), 0, 1, 4, exato=False)
    taua = _nome("mun-taua", 4, "Santo Antônio do Tauá", ("uf-pa",), 0, 1, 4, exato=False)
    assert decision.decidir(e, [caiua, longo, taua], None).municipio == longo
    # Three edits away, a longer name takes nothing from the name written exactly.
    assert decision.decidir(e, [caiua, taua], None).municipio == caiua


def test_ordinary_words_around_an_exact_name_misspell_a_longer_one_only_by_an_edit() -> None:
    # "Vera Mendez" is Vera Mendes (PI); "rocha boa vista" is no Nova Boa Vista.
    e = _entender("prefeitura de Vera Mendez")
    vera = _nome("mun-vera", 4, "Vera", ("uf-mt",), 0, 3, 3)
    mendes = _nome("mun-vm", 4, "Vera Mendes", ("uf-pi",), 0, 3, 4, exato=False)
    assert decision.decidir(e, [vera, mendes], None).municipio == mendes
    e = _entender("rua passarao 2355 dr airton rocha boa vista")
    boa_vista = _nome("mun-bv", 4, "Boa Vista", ("uf-rr",), 0, 4, 5)
    nova = _nome("mun-nbv", 4, "Nova Boa Vista", ("uf-rs",), 0, 3, 5, exato=False)
    assert decision.decidir(e, [boa_vista, nova], None).municipio == boa_vista


def test_a_long_texts_address_is_read_wherever_it_stands() -> None:
    relato = "O mato está alto e esconde o buraco de quem vem de bicicleta. " * 10
    endereco = question.do_payload(
        {
            "entidades_extraidas": {
                "endereco": f"{relato}Moro em Dourados. Aqui na Rua 14 de Julho, 1500, "
                "Centro, Campo Grande tem um buraco. Obrigado."
            }
        }
    )
    assert endereco is not None and endereco.texto is not None
    assert endereco.texto.startswith("Aqui na Rua 14 de Julho")
    e = parser.entender(endereco)
    assert (e.rua, e.numero, e.lugares[0]) == ("RUA 14 DE JULHO", "1500", "CENTRO")
    # A street within what is read, or none at all: the text as it is.
    assert question.localizado("Rua A, 1, Centro. " + relato) == "Rua A, 1, Centro. " + relato
    assert question.localizado(relato) == relato
    # One scan, however long or hostile the text.
    for hostil in ("a" * 262_144, "rua " * 65_000, "x" * 300 + ". rua" * 50_000):
        inicio = time.perf_counter()
        question.localizado(hostil)
        assert time.perf_counter() - inicio < 0.1


def test_a_name_that_runs_into_a_bairro_holds_no_shorter_name_inside_it() -> None:
    """ "parque residencial cidade nova maringa": the bairro Parque Residencial Cidade
    Nova of Maringá runs into Nova Maringá (MT), and Maringá inside it stays."""
    e = _entender("avenida kakogawa 276 parque residencial cidade nova maringa")
    nova = _nome("mun-nm", 4, "Nova Maringá", ("uf-mt",), 0, 4, 5)
    maringa = _nome("mun-mga", 4, "Maringá", ("uf-pr",), 0, 5, 5)
    assert decision.decidir(e, [nova, maringa], None).municipio == nova  # a wrong município
    bairro = NomeCep(0, 1, 4, "bairro", "mun-mga", 25)
    ctx = decision.decidir(e, [nova, maringa], None, Gazetteer([bairro], set()))
    assert ctx.municipio == maringa


def test_a_street_whose_last_word_is_a_sigla_keeps_it_when_its_number_follows() -> None:
    e = _entender("Avenida José da Silva Sé, 556 - Centro, São José do Rio Preto - SP")
    assert (e.logradouro, e.numero) == ("JOSE DA SILVA SE", "556")
    assert "SE" not in e.lugares
    # S/N written without its slash, in lower case with no punctuation.
    e = _entender("rua principal s n centro gararu")
    assert (e.logradouro, e.sem_numero, e.lugares) == ("PRINCIPAL", True, ["CENTRO GARARU"])
