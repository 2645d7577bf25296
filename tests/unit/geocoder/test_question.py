"""The address a payload gives (d2.geocoder.question), without a database."""

from __future__ import annotations

from d2.geocoder import question


def test_question__fields_joined_cleaned_and_bounded() -> None:
    e = question.do_payload(
        {
            "entidades_extraidas": {
                "endereco": "Rua A,\x00 10\u200b - Centro",
                "nomeRua": "rua a",
                "cep": "78010100",
            }
        }
    )
    assert e is not None
    assert e.original == "Rua A, 10 - Centro, 78010-100"
    assert e.cep == "78010-100"
    longo = question.do_payload({"entidades_extraidas": {"endereco": "x " * 100_000}})
    assert longo is not None and len(longo.original) <= question.LIMITE


def test_question__nothing_usable_is_no_address() -> None:
    for entidades in ({}, {"endereco": "   "}, {"endereco": "🙂🙂"}, {"cep": 123}, "x", None):
        assert question.do_payload({"entidades_extraidas": entidades}) is None
    assert question.do_payload([]) is None


def test_question__the_cep_is_read_after_its_word_and_names_fold_case_and_accents() -> None:
    a = question.do_payload({"entidades_extraidas": {"endereco": "CEP: 78300-200"}})
    b = question.do_payload({"entidades_extraidas": {"endereco": "cep 78300200"}})
    assert a is not None and b is not None
    assert a.cep == b.cep == "78300-200"
    assert question.normalizar("São  JOÃO") == "sao joao"
