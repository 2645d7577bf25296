"""Where a reader reads a place (d2.geocoder.places.position) and the words of the language
it weighs (d2.geocoder.places.lexicon): a name's strength where it stands, and whether it
is read."""

from __future__ import annotations

import pytest

from d2.geocoder import fields, parser, question
from d2.geocoder.places import lexicon, position
from d2.geocoder.places.gazetteer import Gazetteer, NomeCep
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate
from d2.geocoder.places.interpretation import palavras_do_segmento

Forca = position.Forca


def _entender(texto: str) -> fields.Entendido:
    endereco = question.do_payload({"entidades_extraidas": {"endereco": texto}})
    assert endereco is not None
    return parser.entender(endereco)


def _achar(e: fields.Entendido, nome: str, nivel: int = MUNICIPIO) -> Candidate:
    """The candidate SQL would return for nome in the first segment that holds it."""
    alvo = question.normalizar(nome).upper().split()
    for j, lugar in enumerate(e.lugares):
        palavras = lugar.split()
        for i in range(len(palavras) - len(alvo) + 1):
            if palavras[i : i + len(alvo)] == alvo:
                return Candidate(
                    f"uc-{nome}", nivel, nome, (f"uc-{nome}", "uf-x"), j, i + 1, i + len(alvo)
                )
    raise AssertionError(f"{nome} is not in {e.lugares}")


def _forca(texto: str, nome: str) -> Forca:
    e = _entender(texto)
    c = _achar(e, nome)
    return position.forca(e, palavras_do_segmento(e, c), c)


@pytest.mark.parametrize(
    ("texto", "nome", "forca"),
    [
        # Said as a place as such.
        ("Moro no Sítio Boa Esperança, município de Quixadá", "Quixadá", Forca.FORTE),
        (
            "Gostaria de pedir à Prefeitura de Maracaju a instalação de um quebra-molas",
            "Maracaju",
            Forca.FORTE,
        ),
        ("A estrada para o sítio, zona rural de Inhapi, está intransitável", "Inhapi", Forca.FORTE),
        ("Rua X, 10, Natal RN", "Natal", Forca.FORTE),
        ("Rua X, 10, Natal/RN", "Natal", Forca.FORTE),
        ("Escrevo de Agudo, Rio Grande do Sul", "Agudo", Forca.FORTE),
        ("buraco na rua X 100 centro natal", "Natal", Forca.FORTE),
        ("Cidade: Natal", "Natal", Forca.FORTE),
        ("o lixo não passa aqui em Natal", "Natal", Forca.FORTE),
        # Alone in its segment.
        ("Rua X, 10, Centro, Natal", "Natal", Forca.MEDIA),
        ("no Taguatinga Norte de Brasília, tem mosquito", "Brasília", Forca.MEDIA),
        # Closing its phrase ("… tem buraco"), or at a place's start with prose after it.
        ("Quixeramobim tem muito buraco na rua", "Quixeramobim", Forca.MEDIA),
        ("Quixeramobim buraco enorme na rua", "Quixeramobim", Forca.FRACA),
        # After any other word: part of another name, or of prose.
        ("desde março esperando a troca da lâmpada", "Marco", Forca.NENHUMA),
        ("Na porta da Farmácia São José tem um bueiro sem tampa", "São José", Forca.NENHUMA),
        ("falta luz toda vez que chove", "Luz", Forca.NENHUMA),
        # "de" after a noun of prose: a holiday, a heap of something, not a place.
        ("piscando desde o feriado de Tiradentes. Quase bati", "Tiradentes", Forca.NENHUMA),
        ("deixaram um monte de areia na rua e entupiu", "Areia", Forca.NENHUMA),
        ("sentido Povoado Lagoa Nova, Quixadá", "Lagoa Nova", Forca.NENHUMA),
        (
            "Distrito de Lagoa da Prata, zona rural de Tartarugalzinho",
            "Lagoa da Prata",
            Forca.NENHUMA,
        ),
    ],
)
def test_position__a_names_strength_where_it_stands(texto: str, nome: str, forca: Forca) -> None:
    assert _forca(texto, nome) == forca


def test_position__a_ufs_name_inside_another_name_is_no_uf() -> None:
    e = _entender("Rua Margarida, 2280 - Praia do Amapá, Rio Branco - AC")
    amapa = _achar(e, "Amapá", UF)
    assert position.forca(e, palavras_do_segmento(e, amapa), amapa) == Forca.NENHUMA
    assert not position.lido(e, palavras_do_segmento(e, amapa), amapa)


def test_position__an_ordinary_word_is_a_place_only_said_as_one_or_in_an_address() -> None:
    def lido(texto: str, nome: str, g: Gazetteer | None = None) -> bool:
        e = _entender(texto)
        c = _achar(e, nome)
        return position.lido(e, palavras_do_segmento(e, c), c, g)

    # Natal is a word (Christmas): alone in a sentence of prose it names no place…
    assert not lido("Natal chegando e a praça sem enfeite nenhum", "Natal")
    assert not lido("Vitória! Finalmente taparam o buraco.", "Vitória")
    # … in an address, or said as a place, it does.
    assert lido("Rua X, 10, Centro, Natal", "Natal")
    assert lido("o lixo não passa aqui em Natal", "Natal")
    # A short text of places alone, but for a very common word after ordinary ones.
    assert lido("Timirim, Timóteo", "Timóteo")
    assert not lido("Obrigada, Glória", "Glória")
    # With a bairro of it named (d2.cep_nomes), a very common word is the town.
    e = _entender("Centro, Natal")
    c = _achar(e, "Natal")
    g = Gazetteer([NomeCep(0, 1, 1, "bairro", c.unidade_civica_id, 20)], set())
    assert position.lido(e, palavras_do_segmento(e, c), c, g)
    assert not position.lido(e, palavras_do_segmento(e, c), c, Gazetteer([], set()))


def test_position__a_month_is_time_but_where_nothing_else_is_meant() -> None:
    e = _entender("Rua X, 10, o buraco apareceu em março")
    c = _achar(e, "Marco")
    assert position.forca(e, palavras_do_segmento(e, c), c) == Forca.FORTE  # after "em"
    assert not position.lido(e, palavras_do_segmento(e, c), c)
    e = _entender("Rua X, 10, Marco - CE")
    c = _achar(e, "Marco")
    assert position.lido(e, palavras_do_segmento(e, c), c)


def test_position__a_misspelling_or_a_name_of_ordinary_words_only_alone() -> None:
    e = _entender("Feliz Natal a todos os servidores da prefeitura!")
    c = _achar(e, "Feliz Natal")
    assert position.forca(e, palavras_do_segmento(e, c), c) == Forca.FRACA
    assert not position.lido(e, palavras_do_segmento(e, c), c)
    e = _entender("Quixeramobim buraco enorme na rua")
    c = _achar(e, "Quixeramobim")
    assert position.lido(e, palavras_do_segmento(e, c), c)
    torto = Candidate(c.unidade_civica_id, c.nivel, c.nome, c.cadeia_ucs, 0, 1, 1, exato=False)
    assert not position.lido(e, palavras_do_segmento(e, torto), torto)


def test_position__a_bairro_named_like_a_word_only_alone_or_marked() -> None:
    e = _entender("bom dia e o lixo n passa desde segunda")
    c = _achar(e, "E", BAIRRO)
    assert not position.lido(e, palavras_do_segmento(e, c), c)
    e = _entender("Rua X, 10, Centro, Dourados")
    c = _achar(e, "Centro", BAIRRO)
    assert position.lido(e, palavras_do_segmento(e, c), c)


def test_lexicon__words_of_the_language_from_wordfreq_and_cldr() -> None:
    # Typed as people type them, accents or not; a misspelt town is no word.
    assert all(lexicon.palavra_comum(p) for p in ("calcada", "calçada", "falta", "alagou"))
    assert not any(lexicon.palavra_comum(p) for p in ("duorados", "curitba", "japaraitnga"))
    assert lexicon.trecho_comum(["o", "cara"]) and not lexicon.trecho_comum(["duas", "baras"])
    # A town named like a word, and like a very common one.
    assert lexicon.nome_comum("Natal") and lexicon.nome_comum("Timóteo")
    assert not lexicon.nome_comum("Quixeramobim") and not lexicon.nome_comum("Campo Grande")
    assert lexicon.nome_muito_comum("Glória") and not lexicon.nome_muito_comum("Dourados")
    assert lexicon.frase_comum("Feliz Natal") and lexicon.frase_comum("Santo Antônio")
    assert not lexicon.frase_comum("Pedra Branca do Amapari")
    # Months and weekdays, as d2.nome_busca writes them.
    assert lexicon.temporal("marco") and lexicon.temporal("sabado") and lexicon.temporal("segunda")
    assert not lexicon.temporal("natal")


def test_position__a_street_read_out_of_prose_makes_no_address() -> None:
    # "a luz da rua apaga…": "rua" followed by prose is no street, and Luz stays a word.
    e = _entender("a luz da rua apaga toda vez que chove")
    c = _achar(e, "Luz")
    assert not position.endereco(e)
    assert not position.lido(e, palavras_do_segmento(e, c), c)
    # A street of ordinary words is still a street.
    assert position.endereco(_entender("Rua das Flores, Luz"))
