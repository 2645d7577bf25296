"""A form's labels (d2.geocoder.labels) and how the parser reads their values: a label is
never a value, and says what its value is."""

from __future__ import annotations

import enderecobr

from d2.geocoder import labels, parser, question


def _campos(texto: str) -> list[tuple[str | None, str]]:
    return [
        (c.papel, c.valor.strip(" .|,;\n")) for c in labels.campos(enderecobr.normalizar(texto))
    ]


def test_labels__one_per_line_per_sentence_or_between_pipes() -> None:
    assert _campos("Endereço: Rua X, 12\nBairro: Centro\nCidade: Natal\nUF: RN") == [
        (labels.ENDERECO, "RUA X, 12"),
        (labels.BAIRRO, "CENTRO"),
        (labels.CIDADE, "NATAL"),
        (labels.UF, "RN"),
    ]
    assert _campos("Nome: Maria. Endereço: Rua X, 12. Município: Iapu. Problema: lâmpada") == [
        (labels.FORA, "MARIA"),
        (labels.ENDERECO, "RUA X, 12"),
        (labels.CIDADE, "IAPU"),
        (labels.OUTRO, "LAMPADA"),
    ]
    assert _campos("Logradouro: Rua A | Nº: 30 | Cidade/UF: Brasília/DF") == [
        (labels.RUA, "RUA A"),
        (labels.NUMERO, "30"),
        (labels.CIDADE, "BRASILIA/DF"),
    ]
    # Labels in one line of lower case, "o endereço é", text before any label; a time
    # and a colon in prose are no labels.
    assert _campos("blz entao o endereço é R X 10 Centro") == [
        (None, "BLZ ENTAO"),
        (labels.ENDERECO, "R X 10 CENTRO"),
    ]
    assert _campos("cheguei às 10:30 e estava assim: um buraco enorme") == [
        (None, "CHEGUEI AS 10:30 E ESTAVA ASSIM: UM BURACO ENORME")
    ]
    assert labels.rotulado("Cidade: Natal") and not labels.rotulado("Rua X, 10, Natal")


def test_labels__a_label_is_never_a_value_and_says_what_its_value_is() -> None:
    def entender(texto: str) -> parser.fields.Entendido:
        endereco = question.do_payload({"entidades_extraidas": {"endereco": texto}})
        assert endereco is not None
        return parser.entender(endereco)

    e = entender("Logradouro: não sei o nome\nPonto de referência: atrás do campo de futebol")
    assert "LOGRADOURO" not in " ".join(e.lugares)  # Logradouro is a município of PB
    assert e.referencia == "CAMPO DE FUTEBOL"
    e = entender("Município: Rodrigues Alves\nBairro: -\nEndereço: não sei a rua")
    assert e.lugares[0] == "RODRIGUES ALVES" and e.lugares_cidade == {0}
    e = entender("Nome: João Pessoa da Silva. Bairro: Centro. Cidade: Iapu. Nº: 15")
    assert "JOAO PESSOA" not in " ".join(e.lugares)  # a person, not the capital
    assert (e.bairro, e.numero, e.lugares_bairro) == ("CENTRO", "15", {0})
    e = entender("Logradouro: Rua Tracajá | Nº: 287 | Bairro: Centro | Cidade: CACAULÂNDIA")
    assert (e.tipo, e.logradouro, e.numero) == ("RUA", "TRACAJA", "287")


def test_parser__sentences_end_where_a_reader_ends_them() -> None:
    """A dot after a word of four letters or more, a number, or a short word or UF's sigla
    that a common word follows; never after an abbreviation enderecobr or the POIs' kinds
    know, nor an initial."""

    def frases(texto: str) -> list[str]:
        return [f.strip() for f in parser._frases(enderecobr.normalizar(texto)) if f.strip()]

    assert frases("enquanto no bairro falta água. Itaubal, Amapá.") == [
        "ENQUANTO NO BAIRRO FALTA AGUA",
        "ITAUBAL, AMAPA",
    ]
    assert frases("Escrevo de Agudo, Rio Grande do Sul. No bairro Centro a coleta parou") == [
        "ESCREVO DE AGUDO, RIO GRANDE DO SUL",
        "NO BAIRRO CENTRO A COLETA PAROU",
    ]
    assert frases("Lagoa Grande/PE. A rua fica um breu") == [
        "LAGOA GRANDE/PE",
        "A RUA FICA UM BREU",
    ]
    assert frases("Rua 2, 150. Bairro: Centro") == ["RUA 2, 150", "BAIRRO: CENTRO"]
    for inteiro in (
        "Rua Prof. João Silva, 10",
        "Rua Com. Araújo, 10",
        "Al. Cavalcante, nº 1123",
        "Hosp. Regional, Campo Grande",
        "E.E. Maria Constança",
        "Igr. N. Sra. Aparecida",
    ):
        assert len(frases(inteiro)) == 1, inteiro
