"""Understanding addresses without a database: the fields split
from the ways citizens write, complements that never reach a search, the place rules
(homonyms, CEPs, contradictions), and the parser's bounded work on hostile texts."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d2.bench import adversarial
from d2.geocoder import complaint, fields, ladder_steps, parser, question
from d2.geocoder.nominatim import search
from d2.geocoder.places import decision, gazetteer
from d2.geocoder.places.inference import Candidate, Reason


def _entender(**entidades: str) -> fields.Entendido:
    """The fields of a payload's entidades (nothing, for a text with no letter or digit:
    the handler discards it before the stage)."""
    endereco = question.do_payload({"entidades_extraidas": entidades})
    return parser.entender(endereco) if endereco is not None else fields.Entendido()


CAMPOS = [
    # (text, expected fields, place segments)
    (
        "R. Antonio Maria Coelho 1500 Campo Grande MS",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "numero": "1500"},
        ["CAMPO GRANDE MS", "MS"],
    ),
    (
        "Rua Antonio Maria Coelho 1.500 Campo Grande",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "numero": "1500"},
        ["CAMPO GRANDE"],
    ),
    (
        "Em frente ao número 1500 da Rua Antônio Maria Coelho, Campo Grande",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "numero": "1500"},
        ["CAMPO GRANDE"],
    ),
    (
        "Rua Antônio Maria Coelho esquina com Rua 14 de Julho, Campo Grande",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "esquina": "RUA 14 DE JULHO"},
        ["CAMPO GRANDE"],
    ),
    (
        # Both streets after the word, the address's first.
        "esquina da Rua Antônio Maria Coelho com a Rua 14 de Julho, Campo Grande",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "esquina": "RUA 14 DE JULHO"},
        ["CAMPO GRANDE"],
    ),
    (
        "No cruzamento da Av. Afonso Pena com a Rua 14 de Julho, Campo Grande",
        {"tipo": "AVENIDA", "logradouro": "AFONSO PENA", "esquina": "RUA 14 DE JULHO"},
        ["CAMPO GRANDE"],
    ),
    (
        "cruzamento entre a Rua Marechal Rondon e a Rua 14 de Julho, Campo Grande - MS",
        {"tipo": "RUA", "logradouro": "MARECHAL RONDON", "esquina": "RUA 14 DE JULHO"},
        ["CAMPO GRANDE", "MS"],
    ),
    (
        # The prose before the corner goes; the município after "em" is a place.
        "Buraco na esquina da Av Afonso Pena com Rua Rui Barbosa em Campo Grande",
        {"tipo": "AVENIDA", "logradouro": "AFONSO PENA", "esquina": "RUA RUI BARBOSA"},
        ["CAMPO GRANDE"],
    ),
    (
        # "e" joins two streets only before a street's type; "Com." is a Comendador.
        "esquina da Rua Pedro e Paulo com a Rua Com. Araújo, Dourados",
        {"tipo": "RUA", "logradouro": "PEDRO E PAULO", "esquina": "RUA COM. ARAUJO"},
        ["DOURADOS"],
    ),
    (
        "Rua Antônio Maria Coelho, S/N, Campo Grande - MS",
        {"tipo": "RUA", "logradouro": "ANTONIO MARIA COELHO", "numero": "S/N"},
        ["CAMPO GRANDE", "MS"],
    ),
    (
        "Rua Antônio Maria Coelho nº 1500, Bairro Monte Castelo, Campo Grande/MS",
        {
            "tipo": "RUA",
            "logradouro": "ANTONIO MARIA COELHO",
            "numero": "1500",
            "bairro": "MONTE CASTELO",
        },
        ["MONTE CASTELO", "CAMPO GRANDE", "MS"],
    ),
    (
        "Av. Hayel Bon Faker, 2000, Dourados",
        {"tipo": "AVENIDA", "logradouro": "HAYEL BON FAKER", "numero": "2000"},
        ["DOURADOS"],
    ),
    (
        "Próximo à Escola Estadual Maria Constança, Jd Caramuru, Dourados-MS",
        {"referencia": "ESCOLA ESTADUAL MARIA CONSTANCA"},
        ["JARDIM CARAMURU", "DOURADOS", "MS"],
    ),
    (
        "Rua 14 de Julho 1500 casa 2 fundos Centro Campo Grande MS 79002-220",
        {
            "tipo": "RUA",
            "logradouro": "14 DE JULHO",
            "numero": "1500",
            "complemento": "CASA 2 FUNDOS",
            "cep": "79002220",
        },
        ["CENTRO CAMPO GRANDE MS", "MS"],
    ),
    (
        "qd 3 lt 5, Jardim das Flores, Vila Aurora",
        {"complemento": "QUADRA 3 LOTE 5"},
        ["JARDIM DAS FLORES", "VILA AURORA"],
    ),
    (
        "Rodovia BR-163 km 10, Dourados",
        {"tipo": "RODOVIA", "logradouro": "BR-163", "numero": "KM 10"},
        ["DOURADOS"],
    ),
    (
        "Avenida Campo Grande 50, Dourados/MS",
        {"tipo": "AVENIDA", "logradouro": "CAMPO GRANDE", "numero": "50"},
        ["DOURADOS", "MS"],
    ),
    ("Jardim das Flores, Vila Aurora", {}, ["JARDIM DAS FLORES", "VILA AURORA"]),
    ("Beira-Rio, Nova Boreal", {}, ["BEIRA-RIO", "NOVA BOREAL"]),
]


@pytest.mark.parametrize(("texto", "esperado", "lugares"), CAMPOS, ids=[c[0] for c in CAMPOS])
def test_fields__split_as_citizens_write(
    texto: str, esperado: dict[str, str], lugares: list[str]
) -> None:
    e = _entender(endereco=texto)
    assert e.como_json() == esperado
    assert e.lugares == lugares


def test_fields__the_payloads_own_fields_are_used_for_what_they_are() -> None:
    e = _entender(nomeRua="Rua Hayel Bon Faker", endereco="2000, Dourados", cep="79806-000")
    assert (e.rua, e.numero, e.cep, e.lugares) == (
        "RUA HAYEL BON FAKER",
        "2000",
        "79806000",
        ["DOURADOS"],
    )
    # The text repeating nomeRua gives only the number.
    e = _entender(nomeRua="Rua das Palmeiras", endereco="Rua das Palmeiras, 123, Vila Aurora")
    assert (e.rua, e.numero, e.lugares) == ("RUA DAS PALMEIRAS", "123", ["VILA AURORA"])


def _municipio(nome: str = "Campo Grande", uc: str = "mun-cg", uf: str = "uf-ms") -> Candidate:
    return Candidate(uc, 4, nome, (uc, uf), 0, 1, 2)


def _consultas(contexto: decision.Contexto) -> list[search.Consulta]:
    """Every search the ladder would make for this address, if each found nothing."""
    ladder = ladder_steps.ladder_for(contexto)
    consultas = []
    try:
        tentativa = next(ladder)
        while True:
            if tentativa.consulta is not None:
                consultas.append(tentativa.consulta)
            tentativa = ladder.send(ladder_steps.Avaliacao(vazio=True))
    except StopIteration:
        pass
    return consultas


COMPLEMENTOS = [
    "Rua Antônio Maria Coelho, 1500, apto 12, Campo Grande",
    "Rua Antônio Maria Coelho 1500 ap. 12 bl B Campo Grande",
    "Rua Antônio Maria Coelho 1500 casa 2 fundos, Campo Grande",
    "Rua Antônio Maria Coelho, nº 1500, qd 3 lt 5, Campo Grande",
    "Rua Antônio Maria Coelho 1500 sala 3 - Campo Grande",
    "Rua Antônio Maria Coelho, 1500, loja 2, Edifício Solar, Campo Grande",
    "Rua Antônio Maria Coelho 1500 BLOCO B APTO 101",
]


@pytest.mark.parametrize("texto", COMPLEMENTOS)
def test_fields__complements_never_reach_a_search(texto: str) -> None:
    contexto = decision.Contexto(_entender(endereco=texto), municipio=_municipio())
    consultas = _consultas(contexto)
    assert consultas, "the street is asked"
    enviados = " ".join(v for c in consultas for v in c.campos().values())
    for palavra in ("APARTAMENTO", "APTO", "AP ", "CASA", "FUNDOS", "QUADRA", "LOTE", "SALA",
                    "LOJA", "BLOCO", "EDIFICIO", " 12", " 101"):  # fmt: skip
        assert palavra not in f" {enviados} ", (palavra, enviados)


def test_fields__a_street_alone_or_a_bairro_alone_asks_nothing() -> None:
    for texto in ("Antônio Maria Coelho 1500", "Centro"):
        e = _entender(endereco=texto)
        contexto = decision.decidir(
            e, [Candidate("b", 2, "Centro", ("b", "m"), 0, 1, 1)] if texto == "Centro" else [], None
        )
        assert contexto.motivo == Reason.AMBIGUO
        assert _consultas(contexto) == []


CG_MS, CG_AL, DOURADOS = _municipio(), _municipio(uc="mun-cg-al", uf="uf-al"), _municipio(
    "Dourados", "mun-dou")  # fmt: skip
MS = Candidate("uf-ms", 5, "Mato Grosso do Sul", ("uf-ms",), 1, 1, 1)


def _cep(municipio: Candidate | None, logradouro: str = "Rua X") -> decision.Cep:
    return decision.Cep("79002220", "MS", "Campo Grande", "Centro", logradouro, municipio, None)


def _com_nomes(*candidatos: Candidate) -> list[Candidate]:
    return list(candidatos)


def test_places__homonyms_are_decided_by_uf_cep_or_left_to_the_street() -> None:
    e = fields.Entendido(logradouro="X", tipo="RUA", numero="1")
    assert decision.decidir(e, _com_nomes(CG_MS, CG_AL, MS), None).municipio == CG_MS
    assert decision.decidir(e, _com_nomes(CG_MS, CG_AL), _cep(CG_MS)).municipio == CG_MS
    ctx = decision.decidir(e, _com_nomes(CG_MS, CG_AL), None)
    assert (ctx.municipio, ctx.homonimos, ctx.conflito) == (None, [CG_MS, CG_AL], False)
    # Two different places named: no guess, no search.
    ctx = decision.decidir(e, _com_nomes(CG_MS, DOURADOS), None)
    assert (ctx.motivo, ctx.conflito, _consultas(ctx)) == (Reason.AMBIGUO, True, [])


def test_places__a_cep_decides_when_the_text_names_no_place_and_loses_when_it_contradicts() -> None:
    e = fields.Entendido(numero="1500")
    ctx = decision.decidir(e, [], _cep(CG_MS, "Rua Antônio Maria Coelho"))
    assert ctx.municipio == CG_MS and not ctx.cep_contraditorio
    (consulta,) = _consultas(ctx)
    assert (consulta.rua, consulta.cidade) == ("RUA ANTONIO MARIA COELHO 1500", "Campo Grande")
    # The evidence's order: the CEP decides over a name inside the street ("Rua Dourados,
    # 1500": no place stands there)…
    rua = _entender(endereco="Rua Dourados, 1500")
    ctx = decision.decidir(
        rua, [Candidate("mun-dou", 4, "Dourados", ("mun-dou", "uf-ms"), 1000, 1, 1)], _cep(CG_MS)
    )
    assert (ctx.municipio, ctx.cep_contraditorio) == (CG_MS, False)
    # … and a município the text names where the CEP places another is a disagreement:
    # either could be the slip, and nothing is guessed.
    ctx = decision.decidir(e, _com_nomes(DOURADOS), _cep(CG_MS))
    assert (ctx.municipio, ctx.motivo, ctx.conflito) == (None, Reason.CONTRADITORIO, True)
    assert ctx.cep_contraditorio and ctx.como_json()["cep_contraditorio"] is True
    # A UF named that the CEP's município is not in: set aside, and marked.
    al = Candidate("uf-al", 5, "Alagoas", ("uf-al",), 1, 1, 1)
    ctx = decision.decidir(e, _com_nomes(al), _cep(CG_MS))
    assert (ctx.municipio, ctx.uf, ctx.cep_contraditorio) == (None, al, True)


def test_places__places_glued_to_a_streets_name_are_cut_from_it() -> None:
    e = _entender(endereco="Rua das Palmeiras Centro Vila Aurora")
    assert e.rua_sem_fim and e.logradouro == "DAS PALMEIRAS CENTRO VILA AURORA"
    cauda = [
        Candidate("b", 2, "Centro", ("b", "m"), decision.CAUDA, 3, 3),
        Candidate("m", 4, "Vila Aurora", ("m",), decision.CAUDA, 4, 5),
        Candidate("x", 4, "Palmeiras", ("x",), decision.CAUDA, 2, 2),  # inside the name
    ]
    ctx = decision.decidir(e, cauda, None)
    assert e.logradouro == "DAS PALMEIRAS"
    assert ctx.municipio is not None and ctx.municipio.unidade_civica_id == "m"
    assert ctx.bairro is not None and ctx.bairro.unidade_civica_id == "b"


def test_places__the_street_left_by_the_cut_tells_homonyms_apart() -> None:
    """d2.cep_nomes matched the street's whole name (nothing, with places glued to it)
    and every run of its words: the run the cut leaves is the address's street."""
    e = _entender(endereco="rua pedro celestino campo grande")
    cauda = [
        Candidate("m-ms", 4, "Campo Grande", ("m-ms", "uf-ms"), decision.CAUDA, 3, 4),
        Candidate("m-al", 4, "Campo Grande", ("m-al", "uf-al"), decision.CAUDA, 3, 4),
    ]
    dados = {("m-ms", "logradouro"), ("m-al", "logradouro")}

    def decidido(nomes: list[gazetteer.NomeCep]) -> str | None:
        ctx = decision.decidir(
            _entender(endereco="rua pedro celestino campo grande"),
            list(cauda),
            None,
            gazetteer.Gazetteer(nomes, dados),
        )
        return ctx.municipio.unidade_civica_id if ctx.municipio else None

    assert decidido([gazetteer.NomeCep(decision.CAUDA, 1, 2, "logradouro", "m-ms", 3)]) == "m-ms"
    # A run that is not the street left by the cut says nothing of the street.
    assert decidido([gazetteer.NomeCep(decision.CAUDA, 2, 2, "logradouro", "m-ms", 3)]) is None
    assert decidido([gazetteer.NomeCep(decision.CAUDA, 1, 2, "bairro", "m-ms", 3)]) is None
    assert e.logradouro == "PEDRO CELESTINO CAMPO GRANDE"


def test_places__places_glued_to_the_crossing_street_are_cut_from_it() -> None:
    texto = "rua joaquim nabuco 200 esquina com rua 7 de setembro natal"
    natal = Candidate("m-natal", 4, "Natal", ("m-natal", "uf-rn"), decision.CAUDA_ESQUINA, 4, 4)
    e = _entender(endereco=texto)
    ctx = decision.decidir(e, [natal], None)
    assert (e.esquina, ctx.municipio) == ("RUA 7 DE SETEMBRO", natal)
    # The crossing street's whole name stays its own ("esquina com Rua Natal").
    e = _entender(endereco="Rua X 10 esquina com Rua Natal")
    so_o_nome = Candidate("m-natal", 4, "Natal", ("m-natal",), decision.CAUDA_ESQUINA, 1, 1)
    ctx = decision.decidir(e, [so_o_nome], None)
    assert (e.esquina, ctx.municipio) == ("RUA NATAL", None)


def test_fields__a_preposition_before_a_street_or_a_bairro_is_not_its_name() -> None:
    e = _entender(endereco="na Rua Doutor Arlindo de Andrade, 132, Amambaí, Campo Grande-MS")
    assert (e.tipo, e.logradouro, e.numero) == ("RUA", "DOUTOR ARLINDO DE ANDRADE", "132")
    assert e.lugares == ["AMAMBAI", "CAMPO GRANDE", "MS"]
    e = _entender(endereco="Rua X, 10, no Bairro Bela Vista, Campo Grande")
    assert (e.bairro, e.lugares, e.lugares_bairro) == (
        "BELA VISTA",
        ["BELA VISTA", "CAMPO GRANDE"],
        {0},
    )
    # "nº 12" (enderecobr writes NO) is a number; "na minha rua" names no street.
    assert _entender(endereco="Rua X, nº 12, Centro").numero == "12"
    e = _entender(endereco="na minha rua")
    assert (e.logradouro, e.lugares) == (None, ["MINHA RUA"])


def test_fields__a_reference_to_a_number_alone_is_the_streets_number() -> None:
    e = _entender(endereco="na Rua Barão de Melgaço, perto do número 664, Centro, Campo Grande")
    assert e.como_json() == {"tipo": "RUA", "logradouro": "BARAO DE MELGACO", "numero": "664"}
    assert e.lugares == ["CENTRO", "CAMPO GRANDE"]
    assert _entender(endereco="Travessa Acre em frente ao 948, Joinville").numero == "948"
    # The street's own number wins over the one it is near.
    assert _entender(endereco="Rua X, 10, perto do nº 12, Centro").numero == "10"


def _nome(
    uc: str, nivel: int, nome: str, cadeia: tuple[str, ...], seg: int, ini: int = 1, fim: int = 1
) -> Candidate:
    return Candidate(uc, nivel, nome, (uc, *cadeia), seg, ini, fim)


def test_places__a_segment_marked_bairro_names_only_a_bairro() -> None:
    e = _entender(endereco="Bairro Bela Vista - Campo Grande/MS")
    bairro = _nome("b-bv", 2, "Bela Vista", ("mun-cg", "uf-ms"), 0, 1, 2)
    nomes = [
        bairro,
        _nome("mun-bv", 4, "Bela Vista", ("uf-ms",), 0, 1, 2),  # a município of MS too
        _nome("mun-cg", 4, "Campo Grande", ("uf-ms",), 1, 1, 2),
        _nome("uf-ms", 5, "Mato Grosso do Sul", (), 2),
    ]
    ctx = decision.decidir(e, nomes, None)
    assert (ctx.municipio, ctx.bairro, ctx.conflito) == (nomes[2], bairro, False)
    # A bairro the territory does not know (SC's): still not the município of its name.
    e = _entender(endereco="Rua Caçapava, 866, Bairro Bom Retiro, Joinville")
    joinville = _nome("mun-jlle", 4, "Joinville", ("uf-sc",), 1)
    bom_retiro = _nome("mun-br", 4, "Bom Retiro", ("uf-sc",), 0, 1, 2)
    assert decision.decidir(e, [bom_retiro, joinville], None).municipio == joinville


def test_places__a_municipio_that_is_a_bairro_of_the_municipio_named_is_that_bairro() -> None:
    e = _entender(endereco="Bela Vista, Campo Grande, MS")
    bairro = _nome("b-bv", 2, "Bela Vista", ("mun-cg", "uf-ms"), 0, 1, 2)
    cg = _nome("mun-cg", 4, "Campo Grande", ("uf-ms",), 1, 1, 2)
    nomes = [bairro, _nome("mun-bv", 4, "Bela Vista", ("uf-ms",), 0, 1, 2), cg]
    ctx = decision.decidir(e, [*nomes, _nome("uf-ms", 5, "Mato Grosso do Sul", (), 2)], None)
    assert (ctx.municipio, ctx.bairro, ctx.conflito) == (cg, bairro, False)


JARDIM = ("mun-jardim", 4, "Jardim", ("uf-ms",))


def test_places__an_area_word_alone_is_the_type_of_a_longer_name() -> None:
    # "Jardim" is a município of MS; "Jardim Guanabara" is a bairro's name.
    e = _entender(endereco="R. Bananal, 653 - Jardim Guanabara, Goiânia")
    goiania = _nome("mun-gyn", 4, "Goiânia", ("uf-go",), 1)
    ctx = decision.decidir(e, [_nome(*JARDIM, 0), goiania], None)
    assert (ctx.municipio, ctx.conflito) == (goiania, False)
    e = _entender(endereco="avenida marginal guaicurus 256 jardim guaicurus dourados")
    dourados = _nome("mun-dou", 4, "Dourados", ("uf-ms",), 0, 3, 3)
    assert decision.decidir(e, [_nome(*JARDIM, 0), dourados], None).municipio == dourados
    # Before a UF's sigla, it is the município; alone, a word that common is no place.
    jardim = _nome(*JARDIM, 0)
    assert decision.decidir(_entender(endereco="Jardim MS"), [jardim], None).municipio == jardim
    assert decision.decidir(_entender(endereco="Jardim"), [jardim], None).municipio is None


def test_places__two_municipios_named_the_one_named_last_is_the_city() -> None:
    # Bom Retiro is a município of SC and a bairro of Joinville: the município named
    # last, right after the bairro, is the city.
    e = _entender(endereco="r. Caçapava, 866 - Bom Retiro, Joinville")
    joinville = _nome("mun-jlle", 4, "Joinville", ("uf-sc",), 1)
    ctx = decision.decidir(
        e, [_nome("mun-br", 4, "Bom Retiro", ("uf-sc",), 0, 1, 2), joinville], None
    )
    assert (ctx.municipio, ctx.conflito) == (joinville, False)
    consultas = _consultas(ctx)
    assert (consultas[0].rua, consultas[0].cidade) == ("RUA CACAPAVA 866", "Joinville")
    # Places a lead-in speaks of ("moro em X e trabalho em Y"): no order decides.
    e = _entender(endereco="Moro em Bom Retiro e trabalho em Joinville, tem buraco na rua")
    bom_retiro = _nome("mun-br", 4, "Bom Retiro", ("uf-sc",), 0, 1, 2)
    ctx = decision.decidir(e, [bom_retiro, _nome("mun-jlle", 4, "Joinville", ("uf-sc",), 1)], None)
    assert ctx.municipio is None
    # Two names in one segment: no guess.
    e = _entender(endereco="Rua X, 10, Jardim Dourados")
    dourados = _nome("mun-dou", 4, "Dourados", ("uf-ms",), 0, 2, 2)
    ctx = decision.decidir(e, [_nome(*JARDIM, 0), dourados], None)
    assert (ctx.municipio, ctx.motivo) == (None, Reason.AMBIGUO)


def _tentativas(contexto: decision.Contexto) -> list[ladder_steps.Tentativa]:
    """Every rung the ladder would climb for this address, if each found nothing."""
    ladder = ladder_steps.ladder_for(contexto)
    tentativas = []
    try:
        tentativa = next(ladder)
        while True:
            tentativas.append(tentativa)
            tentativa = ladder.send(ladder_steps.Avaliacao(vazio=True))
    except StopIteration:
        pass
    return tentativas


def test_places__a_ufs_name_that_is_a_municipios_too_is_not_guessed() -> None:
    parana = _nome("mun-parana", 4, "Paraná", ("uf-rn",), 0)  # Paraná, RN
    ctx = decision.decidir(_entender(endereco="Paraná"), [parana], None)
    assert (ctx.municipio, ctx.uf, ctx.tem_lugar) == (None, None, False)
    assert _tentativas(ctx) == []
    # Its UF beside it: the município.
    rn = _nome("uf-rn", 5, "Rio Grande do Norte", (), 1)
    ctx = decision.decidir(_entender(endereco="Paraná, RN"), [parana, rn], None)
    assert ctx.municipio == parana
    # Alone, where the UF holds the município of its name (Goiás, GO): the UF.
    goias_uf = _nome("uf-go", 5, "Goiás", (), 0)
    goias = _nome("mun-goias", 4, "Goiás", ("uf-go",), 0)
    ctx = decision.decidir(_entender(endereco="Goiás"), [goias_uf, goias], None)
    assert (ctx.municipio, ctx.uf) == (None, goias_uf)
    # Beside another município: the UF.
    goiania = _nome("mun-gyn", 4, "Goiânia", ("uf-go",), 0)
    e = _entender(endereco="Rua 10, 100, Goiânia, Goiás")
    nomes = [
        goiania,
        _nome("uf-go", 5, "Goiás", (), 1),
        _nome("mun-goias", 4, "Goiás", ("uf-go",), 1),
    ]
    ctx = decision.decidir(e, nomes, None)
    assert (ctx.municipio, ctx.conflito) == (goiania, False)


def test_text__an_address_labelled_in_a_long_text_is_read_after_its_label() -> None:
    relato = "O mato está alto e esconde o buraco de quem vem de bicicleta. " * 30
    endereco = question.do_payload(
        {
            "entidades_extraidas": {
                "endereco": f"{relato}Endereço: Rua Gaudêncio Ajala, 475, Campo Grande, MS"
            }
        }
    )
    assert endereco is not None
    assert endereco.texto == "Endereço: Rua Gaudêncio Ajala, 475, Campo Grande, MS"
    assert endereco.original.startswith("O mato") and len(endereco.original) <= question.LIMITE
    e = parser.entender(endereco)
    assert (e.rua, e.numero, e.lugares) == ("RUA GAUDENCIO AJALA", "475", ["CAMPO GRANDE", "MS"])
    # A long text from its first address label on ("Município: X … Endereço: …" keeps
    # the município); "endereço" in the narrative is no label; a short text is kept
    # whole (the parser reads its labels: d2.geocoder.labels).
    longo = relato + "Município: Rio Branco. Endereço: Rua B, 2"
    assert question.rotulado(longo) == "Município: Rio Branco. Endereço: Rua B, 2"
    assert question.rotulado(relato + "Mudei de endereço. Rua C, 3").endswith("Rua C, 3")
    assert question.rotulado("endereco: Rua A, 1. Bairro: B") == "endereco: Rua A, 1. Bairro: B"
    # A few scans of the text, however long or hostile.
    for hostil in ("a" * 262_144, "endereço " * 29_000, "endere" * 43_000, "Endereço:" * 29_000):
        inicio = time.perf_counter()
        question.rotulado(hostil)
        assert time.perf_counter() - inicio < 0.1


HOSTIS = [
    "a" * 400,
    "- " * 200,
    "1." * 200,
    "1" * 400,
    "S/" * 200,
    "EM FRENTE " * 40,
    "esquina com " * 40,
    "esquina da rua com " * 40,
    "cruzamento entre a rua x e " * 30,
    "(" * 200 + ")" * 200,
    "Rua " * 100,
    "nº " * 130,
    "Campo Grande-MS-" * 30,
    "\u2013" * 300,
    "79002-220 " * 40,
    "apto 1 " * 60,
    "R. " + "a-" * 150,
]


def test_fields__hostile_texts_cost_what_an_address_costs() -> None:
    """The text is cut before anything reads it; no expression backtracks; the fields
    are bounded. A catastrophic expression would take seconds on one of these."""
    textos = HOSTIS + adversarial.adversarios(100)
    inicio = time.perf_counter()
    for texto in textos:
        e = _entender(endereco=texto)
        assert len(e.lugares) <= 2 * fields.MAX_SEGMENTOS
        assert all(len(lugar.split()) <= fields.MAX_PALAVRAS_LUGAR for lugar in e.lugares)
        assert len((e.rua or "").split()) <= fields.MAX_PALAVRAS + 1
        assert len(e.texto) <= question.LIMITE
    decorrido = time.perf_counter() - inicio
    # ~50 µs a text here; two orders of magnitude of headroom for a loaded machine.
    assert decorrido < 0.05 * len(textos), decorrido
    longo = "Rua das Palmeiras, 10, Vila Aurora, " * 3000
    assert _entender(endereco=longo) == _entender(endereco=longo[: question.LIMITE])


def test_fields__the_ladders_fields_are_bounded_whatever_the_text() -> None:
    for texto in HOSTIS + adversarial.adversarios(50):
        contexto = decision.Contexto(_entender(endereco=texto), municipio=_municipio())
        for consulta in _consultas(contexto):
            for valor in consulta.campos().values():
                assert len(valor) <= 120 and len(valor.split()) <= 2 * fields.MAX_PALAVRAS


_PEDACOS = st.sampled_from(
    ["Rua", "R.", "Av", "nº", "N°", "1.500", "S/N", "apto", "12", "bl", "B", "qd", "lt",
     "Centro", "Campo Grande", "MS", "-", "/", ",", "esquina com", "em frente ao", "próximo à",
     "79002-220", "km", "Bairro", "(", ")", "º", "\u2013", "Jd", "da", "de"]
)  # fmt: skip


@given(st.lists(st.one_of(_PEDACOS, st.text(max_size=12)), max_size=40).map(" ".join))
@settings(max_examples=int(os.environ.get("D2_CORPUS_EXAMPLES", "200")), deadline=None)
def test_fields__any_text_is_understood_without_failing(texto: str) -> None:
    """Whatever a citizen (or an attacker) writes, understanding it never raises and the
    ladder's questions stay bounded."""
    e = _entender(endereco=texto, nomeRua=texto[:40], cep=texto[-9:])
    contexto = decision.decidir(e, [], None)
    for consulta in _consultas(decision.Contexto(e, municipio=_municipio())) + _consultas(contexto):
        assert all(len(v) <= 120 for v in consulta.campos().values())


def _uc(uc: str, nivel: int, nome: str, seg: int, fim: int = 1) -> Candidate:
    return Candidate(uc, nivel, nome, (uc, "uf-ms"), seg, 1, fim)


def test_a_complaint_s_places_are_those_of_its_clause_with_aqui_or_em_frente() -> None:
    e = _entender(
        endereco="Moro em Dourados mas trabalho em Campo Grande, aqui na Rua X tem um buraco"
    )
    assert (e.rua, e.lugares, e.lugares_atados) == ("RUA X", ["DOURADOS", "CAMPO GRANDE"], {1})
    dourados = _uc("mun-dou", 4, "Dourados", 0)
    campo = _uc("mun-cg", 4, "Campo Grande", 1, 2)
    assert decision.decidir(e, [dourados, campo], None).municipio == campo
    e = _entender(endereco="Sou de Campo Grande mas estou em Dourados, em frente ao mercado")
    assert (e.lugares, e.lugares_atados, e.referencia) == (
        ["CAMPO GRANDE", "DOURADOS"],
        {1},
        "MERCADO",
    )
    campo, dourados = _uc("mun-cg", 4, "Campo Grande", 0, 2), _uc("mun-dou", 4, "Dourados", 1)
    assert decision.decidir(e, [campo, dourados], None).municipio == dourados
    # A bairro tied ("no bairro Y") sets aside only the bairros named elsewhere.
    e = _entender(endereco="Moro no Centro de Dourados. Aqui no bairro Jardim Caramuru tem lixo")
    assert (e.lugares[e.lugares_bairro.pop()], e.lugares_atados) == ("JARDIM CARAMURU", {1})
    centro = _uc("bai-c", 2, "Centro", 0)
    caramuru = Candidate("bai-jc", 2, "Jardim Caramuru", ("bai-jc", "mun-dou"), 1, 1, 2)
    dourados = Candidate("mun-dou", 4, "Dourados", ("mun-dou", "uf-ms"), 0, 3, 3)
    ctx = decision.decidir(e, [centro, caramuru, dourados], None)
    assert (ctx.municipio, ctx.bairro) == (dourados, caramuru)


def test_two_cities_with_no_anchor_stay_two() -> None:
    e = _entender(endereco="Moro em Dourados e trabalho em Campo Grande, tem um buraco na rua")
    assert e.lugares_atados == set()
    dourados = Candidate("mun-dou", 4, "Dourados", ("mun-dou", "uf-ms"), 0, 1, 1)
    campo = Candidate("mun-cg", 4, "Campo Grande", ("mun-cg", "uf-ms"), 1, 1, 2)
    ctx = decision.decidir(e, [dourados, campo], None)
    assert ctx.municipio is None  # the street must be found there: no inference
    # A município's name inside the prose of a clause with "aqui" is no place it names.
    e = _entender(endereco="Rua X, 10, Dourados. Aqui a esperança acabou")
    assert (e.lugares, e.lugares_atados) == (["DOURADOS", "A ESPERANCA ACABOU"], {1})
    dourados = Candidate("mun-dou", 4, "Dourados", ("mun-dou", "uf-ms"), 0, 1, 1)
    esperanca = Candidate("mun-esp", 4, "Esperança", ("mun-esp", "uf-pb"), 1, 2, 2)
    assert decision.decidir(e, [dourados, esperanca], None).municipio == dourados
    # After a preposition, it is one ("tem um buraco | em Campo Grande").
    e = _entender(endereco="Moro em Dourados. Aqui tem buraco em Campo Grande, Rua X")
    assert (e.lugares, e.lugares_atados, e.lugares_em) == (["DOURADOS", "CAMPO GRANDE"], {1}, {1})
    campo = Candidate("mun-cg", 4, "Campo Grande", ("mun-cg", "uf-ms"), 1, 1, 2)
    assert decision.decidir(e, [dourados, campo], None).municipio == campo
    # Nor is a name at the end of its street's ("Rua Nova Esperança": Esperança, PB).
    e = _entender(endereco="Moro em Campo Grande. Aqui na Rua Nova Esperança tem um buraco")
    assert (e.logradouro, e.lugares, e.lugares_atados) == (
        "NOVA ESPERANCA",
        ["CAMPO GRANDE"],
        set(),
    )
    campo = Candidate("mun-cg", 4, "Campo Grande", ("mun-cg", "uf-ms"), 0, 1, 2)
    esperanca = Candidate("mun-esp", 4, "Esperança", ("mun-esp", "uf-pb"), decision.CAUDA, 2, 2)
    assert decision.decidir(e, [campo, esperanca], None).municipio != esperanca
    # "aqui" after "moro", "estou": where the writer is, no anchor.
    e = _entender(endereco="Rua X, 10, Dourados. Moro aqui em Campo Grande")
    assert (e.lugares, e.lugares_atados) == (["DOURADOS", "CAMPO GRANDE"], set())


PROSA = [
    # (text, street, number, place segments)
    ("Aqui na Rua Antônio Maria Coelho tem um buraco, Centro", "RUA ANTONIO MARIA COELHO", None,
     ["CENTRO"]),
    ("Aqui no Jardim Caramuru tem buraco na Rua Hayel Bon Faker, 2000", "RUA HAYEL BON FAKER",
     "2000", ["JARDIM CARAMURU"]),
    ("Moro em Dourados. Aqui na Rua 14 de Julho, 1500, Centro, Campo Grande tem um buraco",
     "RUA 14 DE JULHO", "1500", ["DOURADOS", "CENTRO", "CAMPO GRANDE"]),
    # An address with none of the prose words is read as it always was: a dot after an
    # abbreviation, "Trabalho" and "Moro" inside names.
    ("Rua Profa. Maria do Trabalho, 10, Vila Moro, Campo Grande",
     "RUA PROFESSORA MARIA DO TRABALHO", "10", ["VILA MORO", "CAMPO GRANDE"]),
    # Nor a bairro's name made of them (Teresina's), with no anchor around it.
    ("rua dez 262 vale quem tem teresina", "RUA DEZ", "262", ["VALE QUEM TEM TERESINA"]),
    ("R. Dez, nº 262 - Vale Quem Tem - Teresina-PI", "RUA DEZ", "262",
     ["VALE QUEM TEM", "TERESINA", "PI"]),
]  # fmt: skip


@pytest.mark.parametrize(("texto", "rua", "numero", "lugares"), PROSA, ids=[p[0] for p in PROSA])
def test_the_prose_around_an_address_is_no_name(
    texto: str, rua: str, numero: str | None, lugares: list[str]
) -> None:
    e = _entender(endereco=texto)
    assert (e.rua, e.numero, e.lugares) == (rua, numero, lugares)


def test_clauses_are_cut_in_linear_time() -> None:
    for hostil in ("tem " * 20_000, "aqui " * 20_000, "moro em " * 20_000, "x" * 100_000):
        inicio = time.perf_counter()
        complaint.trechos(hostil.upper())
        assert time.perf_counter() - inicio < 0.5


POIS = [
    # (text, what Nominatim is asked, None: no POI)
    ("Hosp. Regional, Campo Grande MS", "HOSPITAL REGIONAL"),
    ("E.E. Maria Constança, Campo Grande", "ESCOLA ESTADUAL MARIA CONSTANCA"),
    ("EE Maria Constança, Campo Grande", "ESCOLA ESTADUAL MARIA CONSTANCA"),
    ("esc mun padre tomaz, campo grande", "ESCOLA MUNICIPAL PADRE TOMAZ"),
    ("E.M. Padre Tomaz, Campo Grande", "ESCOLA MUNICIPAL PADRE TOMAZ"),
    ("EMEI Pequeno Príncipe, Campo Grande", "EMEI PEQUENO PRINCIPE"),
    ("Unid. Básica de Saúde Tiradentes, Campo Grande", "UNIDADE BASICA DE SAUDE TIRADENTES"),
    ("Igr. N. Sra. Aparecida, Dourados", "IGREJA NOSSA SENHORA APARECIDA"),
    ("Fac. Estácio, Campo Grande", "FACULDADE ESTACIO"),
    ("Sta. Casa, Campo Grande", "SANTA CASA"),
    ("Santa Casa de Misericórdia, Campo Grande", "SANTA CASA DE MISERICORDIA"),
    ("Pq. das Nações Indígenas, Campo Grande", "PARQUE DAS NACOES INDIGENAS"),
    # A kind with no name, a preposition, a bairro: no POI, no search.
    ("EE, Campo Grande", None),
    ("Hosp., Campo Grande", None),
    ("Em Campo Grande", None),
    ("Bairro Escola Agrícola, Campo Grande", None),
]  # fmt: skip


@pytest.mark.parametrize(("texto", "pergunta"), POIS, ids=[p[0] for p in POIS])
def test_a_poi_s_kind_abbreviated_is_asked_written_out(texto: str, pergunta: str | None) -> None:
    assert ladder_steps.poi(decision.Contexto(_entender(endereco=texto))) == pergunta


def test_fields__a_place_said_after_the_bairro_in_one_breath_is_a_place_of_its_own() -> None:
    # "no bairro X em Y", "no bairro Centro de Y": the bairro, then a place segment; no
    # bairro's name holds "em", and "Centro de Y" is Y's centre.
    e = _entender(endereco="moro no bairro Jardim Paulista em Campo Grande MS e a rua está suja")
    assert (e.bairro, e.lugares[:2]) == (
        "JARDIM PAULISTA",
        ["JARDIM PAULISTA", "CAMPO GRANDE MS E A RUA"],
    )
    assert e.lugares_bairro == {0}
    e = _entender(endereco="buraco no bairro Centro de Dourados MS")
    assert (e.bairro, e.lugares) == ("CENTRO", ["BURACO", "CENTRO", "DOURADOS MS", "MS"])
    assert e.lugares_bairro == {1}
    # Any other "de" is the bairro's own: Vila da Penha (Rio) is no Penha (SC).
    e = _entender(endereco="buraco no bairro Vila da Penha")
    assert (e.bairro, e.lugares, e.lugares_bairro) == (
        "VILA DA PENHA",
        ["BURACO", "VILA DA PENHA"],
        {1},
    )


def test_fields__a_ufs_sigla_closing_a_reference_is_the_addresss() -> None:
    e = _entender(endereco="poste caído na avenida afonso pena perto do shopping campo grande ms")
    assert (e.referencia, e.lugares[-1]) == ("SHOPPING CAMPO GRANDE", "MS")
    # A POI's own two-letter word that is no UF stays its name.
    e = _entender(endereco="Rua Bahia, 100, perto da Escola Estadual JK")
    assert e.referencia == "ESCOLA ESTADUAL JK" and e.lugares == []


def test_fields__a_street_named_after_prose_is_the_street() -> None:
    # "gostaria de reclamar do buraco na Rua X": the street from its type on; "em" ends
    # its name ("na Rua X em Campo Grande").
    e = _entender(
        endereco="Boa tarde, gostaria de reclamar do buraco na Rua Marechal Rondon, 1200, Centro"
    )
    assert (e.tipo, e.logradouro, e.numero) == ("RUA", "MARECHAL RONDON", "1200")
    assert e.lugares == ["BOA TARDE", "GOSTARIA DE RECLAMAR DO BURACO", "CENTRO"]
    e = _entender(endereco="O esgoto está vazando na Rua Joaquim Murtinho em Campo Grande")
    assert (e.logradouro, e.lugares[-1]) == ("JOAQUIM MURTINHO", "CAMPO GRANDE")
    # Not the sidewalk, the square: prose words, though street types too.
    e = _entender(endereco="buraco na calçada da Avenida Afonso Pena, 3000, Campo Grande MS")
    assert (e.tipo, e.logradouro, e.numero) == ("AVENIDA", "AFONSO PENA", "3000")
    e = _entender(endereco="lixo na praça do bairro Jardim dos Estados, Campo Grande")
    assert e.logradouro is None
    # No preposition ("árvore caída rua X 500"): the street's type after any word but a
    # connector starts it when a number follows; the words before are a place segment.
    e = _entender(endereco="árvore caída rua 25 de março 500 são paulo")
    assert (e.tipo, e.logradouro, e.numero) == ("RUA", "25 DE MARCO", "500")
    assert e.lugares == ["ARVORE CAIDA", "SAO PAULO"]
    assert _entender(endereco="Campo Grande Rua Bahia 100").lugares == ["CAMPO GRANDE"]
    # A bairro's name holding a type (CEP Aberto's, Campo Grande) stays a place.
    e = _entender(endereco="Conjunto Habitacional Emilio de la Rua Bajo, Campo Grande")
    assert (e.logradouro, e.lugares[0]) == (None, "CONJUNTO HABITACIONAL EMILIO DE LA RUA BAJO")


def test_places__a_municipio_closing_a_bairro_segment_before_its_ufs_sigla_is_the_city() -> None:
    # "Bairro Coophavila II Campo Grande MS": the city, said with no comma.
    e = _entender(endereco="Bairro Coophavila II Campo Grande MS")
    assert (e.lugares, e.lugares_bairro) == (["COOPHAVILA II CAMPO GRANDE MS", "MS"], {0})
    cg = _nome("mun-cg", 4, "Campo Grande", ("uf-ms",), 0, 3, 4)
    ms = _nome("uf-ms", 5, "Mato Grosso do Sul", (), 1)
    assert decision.decidir(e, [cg, ms], None).municipio == cg
    # The same words without a sigla of its UF are the bairro's own ("Bairro Vila Campo
    # Grande", "Bairro ... Campo Grande AL"); a whole bairro named after a município too.
    for texto in ("Bairro Coophavila II Campo Grande", "Bairro Coophavila II Campo Grande AL"):
        e = _entender(endereco=texto)
        al = [_nome("uf-al", 5, "Alagoas", (), 1)] if texto.endswith("AL") else []
        assert decision.decidir(e, [cg, *al], None).municipio is None, texto
    e = _entender(endereco="Bairro Bela Vista MS")
    bv = _nome("mun-bv", 4, "Bela Vista", ("uf-ms",), 0, 1, 2)
    assert decision.decidir(e, [bv, ms], None).municipio is None


def test_fields__altura_do_numero_and_a_sigla_closing_the_crossing_street() -> None:
    e = _entender(
        endereco="Poste sem luz na Avenida Mato Grosso altura do número 2000, Campo Grande"
    )
    assert (e.tipo, e.logradouro, e.numero) == ("AVENIDA", "MATO GROSSO", "2000")
    e = _entender(endereco="rua 13 de maio esquina com a rua dom aquino campo grande ms")
    assert (e.esquina, e.lugares) == ("RUA DOM AQUINO CAMPO GRANDE", ["MS"])
    e = _entender(endereco="Rua Altura, 10, Campo Grande MS")
    assert (e.logradouro, e.numero) == ("ALTURA", "10")
    # A number with places after it, no separator: the places go back to the street's
    # segment, whose tail is cut from the street's name later (decision.decidir).
    e = _entender(endereco="Entulho na calçada da Rua Dom Aquino altura do 1500 Campo Grande")
    assert (e.logradouro, e.numero, e.referencia) == ("DOM AQUINO CAMPO GRANDE", "1500", None)
    # Not a POI's short number ("24 horas"), nor an ordinal ("7º BEC").
    assert _entender(endereco="Rua X em frente ao 24 horas, Dourados").referencia == "24 HORAS"
    assert _entender(endereco="próximo ao 7º BEC, Campo Grande").referencia == "7O BEC"


def test_fields__a_sigla_before_capital_or_interior_is_the_ufs() -> None:
    # "SP capital": the UF named (here against Consolação, MG: no guess, not MG).
    e = _entender(endereco="Rua Frei Caneca 1000 Consolação SP capital")
    assert e.lugares[-2:] == ["CONSOLACAO SP", "SP"]
    assert _entender(endereco="Rua X, 10, Dourados, MS interior").lugares == ["DOURADOS", "MS"]
    assert _entender(endereco="Rua X, 10, Vila Capital").lugares == ["VILA CAPITAL"]


def test_fields__a_date_in_a_complaint_is_no_house_number() -> None:
    e = _entender(endereco="Dia 05/12 caiu uma árvore na Rua Bahia em Campo Grande")
    assert (e.tipo, e.logradouro, e.numero, e.lugares[-1]) == ("RUA", "BAHIA", None, "CAMPO GRANDE")
    e = _entender(endereco="desde 03/04/2024 buraco na Rua Bahia, 100, Campo Grande MS")
    assert (e.logradouro, e.numero) == ("BAHIA", "100")
    # Two numbers of a house are no date.
    assert _entender(endereco="Rua Bahia, 12/14, Campo Grande MS").numero == "12"


def test_fields__a_condominio_with_a_name_is_a_place() -> None:
    # CEP Aberto's bairro "Condomínio Porto Seguro" (Rio das Ostras): not Porto Seguro, BA.
    e = _entender(endereco="Condomínio Porto Seguro, Rio das Ostras")
    assert (e.complemento, e.lugares) == (None, ["CONDOMINIO PORTO SEGURO", "RIO DAS OSTRAS"])
    e = _entender(endereco="Rua X, 10, Condomínio Vila Verde, Campo Grande MS")
    assert e.lugares[0] == "CONDOMINIO VILA VERDE"
    # A condomínio's number or block is a complement, as before.
    for texto, complemento in (
        ("Rua Bahia, 100, Condomínio 3, Campo Grande MS", "CONDOMINIO 3"),
        ("Rua Bahia, 100, Condomínio Bloco B, Campo Grande MS", "CONDOMINIO BLOCO B"),
    ):
        e = _entender(endereco=texto)
        assert (e.complemento, e.lugares) == (complemento, ["CAMPO GRANDE MS", "MS"]), texto


def test_fields__an_ordinal_street_after_prose_is_the_street() -> None:
    # "na 1ª Travessa da Fronteira": the street, not a house number 1A with Fronteira a
    # place after it.
    endereco = question.do_payload(
        {
            "entidades_extraidas": {
                "endereco": "vazamento na 1ª Travessa da Fronteira esquina "
                "com a padaria. Tupanatinga"
            }
        }
    )
    assert endereco is not None
    e = parser.entender(endereco)
    assert (e.tipo, e.logradouro, e.numero) == ("TRAVESSA", "1A DA FRONTEIRA", None)
    assert e.lugares[-1] == "TUPANATINGA"
