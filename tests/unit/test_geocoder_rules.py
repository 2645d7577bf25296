"""The address text, the inference's rules and the address cache, without a database."""

from __future__ import annotations

from d2.geocoder import inference, nominatim_http, nominatim_search, text
from d2.worker import geocoding

AU, BO = "uf-au", "uf-bo"
VILA, NOVA = "mun-vila", "mun-nova"


def _c(
    uc: str, nivel: int, cadeia: tuple[str, ...], seg: int = 0, ini: int = 1, fim: int = 1
) -> inference.Candidate:
    return inference.Candidate(uc, nivel, uc, (uc, *cadeia), seg, ini, fim)


def test_texto__fields_joined_cleaned_and_bounded() -> None:
    e = text.do_payload(
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
    assert e.segmentos == ("Rua A", "10", "Centro", "78010-100")
    longo = text.do_payload({"entidades_extraidas": {"endereco": "x " * 100_000}})
    assert longo is not None and len(longo.original) <= text.LIMITE


def test_texto__nothing_usable_is_no_address() -> None:
    for entidades in ({}, {"endereco": "   "}, {"endereco": "🙂🙂"}, {"cep": 123}, "x", None):
        assert text.do_payload({"entidades_extraidas": entidades}) is None
    assert text.do_payload([]) is None


def test_texto__the_word_cep_is_not_sent_and_the_key_folds_case_and_accents() -> None:
    a = text.do_payload({"entidades_extraidas": {"endereco": "CEP: 78300-200"}})
    b = text.do_payload({"entidades_extraidas": {"endereco": "cep 78300-200"}})
    assert a is not None and b is not None
    assert a.consulta == b.consulta == "78300-200"
    assert text.normalizar("São  JOÃO") == "sao joao"


def test_inferencia__bairro_needs_its_municipio() -> None:
    centro = _c("b-centro", 2, (VILA, AU))
    assert inference.decidir([centro]).motivo == inference.Reason.AMBIGUO
    r = inference.decidir([centro, _c(VILA, 4, (AU,), seg=1, fim=2)])
    assert r.uc is not None and r.uc.unidade_civica_id == "b-centro"


def test_inferencia__a_name_inside_a_longer_one_is_not_a_name() -> None:
    # "Nova Boreal": the UF "Boreal" is its second word, not a UF named.
    r = inference.decidir([_c(NOVA, 4, (BO,), ini=1, fim=2), _c(BO, 5, (), ini=2, fim=2)])
    assert r.uc is not None and r.uc.unidade_civica_id == NOVA and r.motivo is None


def test_inferencia__municipio_outside_the_uf_named_is_a_contradiction() -> None:
    r = inference.decidir([_c(NOVA, 4, (BO,), fim=2), _c(AU, 5, (), seg=1)])
    assert (r.uc, r.motivo) == (None, inference.Reason.CONTRADITORIO)


def test_inferencia__two_municipios_or_homonyms_without_uf_are_ambiguous() -> None:
    r = inference.decidir([_c(VILA, 4, (AU,)), _c("mun-vila-2", 4, (BO,))])
    assert (r.uc, r.motivo) == (None, inference.Reason.AMBIGUO)
    r = inference.decidir([_c(VILA, 4, (AU,)), _c("mun-vila-2", 4, (BO,)), _c(AU, 5, (), 1)])
    assert r.uc is not None and r.uc.unidade_civica_id == VILA


def test_inferencia__only_a_uf_gives_the_uf_and_nothing_gives_nothing() -> None:
    r = inference.decidir([_c(AU, 5, ())])
    assert r.uc is not None and r.uc.nivel == 5
    assert inference.decidir([]).motivo == inference.Reason.NAO_ENCONTRADO


def test_inferencia__street_segments_are_read_only_when_alone() -> None:
    e = text.do_payload({"entidades_extraidas": {"endereco": "Rua Bahia, 10, Vila Aurora"}})
    assert e is not None
    assert [s for _, s in inference.segmentos_lidos(e)] == ["10", "Vila Aurora"]
    so = text.do_payload({"entidades_extraidas": {"endereco": "Rua Bahia 10 Vila Aurora"}})
    assert so is not None and len(inference.segmentos_lidos(so)) == 1


def test_cache__bounded_expires_and_empties_on_a_new_import() -> None:
    agora = [0.0]
    cache = geocoding.AddressCache(2, 10, clock=lambda: agora[0])
    achado = nominatim_search.Match(-1, -2, 30, "place", "house", "br", "x")
    cache.observar_geracao(1)
    cache.definir_chave("a", achado)
    cache.definir_chave("b", None)
    assert cache.obter_chave("a") == (True, achado)
    cache.definir_chave("c", None)  # "b" was the least recently used
    assert cache.obter_chave("b") == (False, None) and len(cache) == 2
    agora[0] = 11
    assert cache.obter_chave("a") == (False, None)
    cache.definir_chave("d", None)
    cache.observar_geracao(2)
    assert len(cache) == 0


def test_estagio__keeps_the_cache_it_is_given_even_empty() -> None:
    """The worker's cache outlives a reconnect: an empty one (falsy) is still the one."""
    from d2 import config

    cache = geocoding.AddressCache(10, 10)
    http = nominatim_http.NominatimHTTP("http://127.0.0.1:9")
    try:
        assert geocoding.GeocodingStage(config.load(), http, cache=cache).cache is cache
    finally:
        http.fechar()
