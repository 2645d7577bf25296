"""The bad-input corpus (tests/support/corpus.py) itself: enough kinds, every documented
outcome covered, and the same outcomes as the handler's (the corpus runs through the worker
in tests/integration)."""

from __future__ import annotations

from d2.handler import classification
from tests.support import corpus


def test_corpus__has_at_least_50_kinds_covering_every_outcome() -> None:
    assert len(corpus.CASOS) >= 50
    assert {c.esperado for c in corpus.CASOS} == set(corpus.OUTCOMES)
    assert all(c.motivo for c in corpus.CASOS if c.esperado == corpus.DEAD_LETTER)


def test_corpus__outcome_values_match_the_handlers_outcomes() -> None:
    # The address outcomes have their own cases in tests/integration/geocoder/test_address.py.
    enderecos = {"geocodificacao_pendente", "endereco_nao_resolvido"}
    handler = {str(d) for d in classification.Outcome} - {"republicada"} - enderecos
    assert handler == set(corpus.OUTCOMES) - {corpus.REFUSED_BY_EVENT_LOG}
