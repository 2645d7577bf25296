"""The Registry's schemas (spec §3.1, §3.2) and its error messages."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from d2 import errors
from d2.eventlog import registry
from tests.support.events import payload_georreferenciada, payload_normalizada

GEO = "demanda.georreferenciada"
NORM = "demanda.normalizada"


def normalizada(**changes: Any) -> dict[str, Any]:
    """A demanda.normalizada with every optional field the contract names filled in."""
    completo: dict[str, Any] = {
        "confianca_normalizacao": 0.87,
        "origem_normalizacao": "hibrido",
        "entidades_extraidas": {"endereco": "Rua A, 10", "cep": "88000-000", "nomeRua": "Rua A"},
    }
    return payload_normalizada(-27.59, -48.55, **(completo | changes))


@pytest.fixture(scope="module")
def reg() -> registry.Registry:
    return registry.registry()


def test_registry__ships_the_catalogue(reg: registry.Registry) -> None:
    assert reg.tipos() == [
        GEO,
        NORM,
        "lugar.cadastrado",
        "uc.moderacao_solicitada",
        "uc.poligono_adicionado",
        "uc.poligono_atualizado",
        "uc.poligono_removido",
    ]
    assert reg.versoes(NORM) == ["1.0.0", "1.1.0", "1.2.0"]
    assert reg.versoes(GEO) == ["1.0.0"]
    assert reg.versao_padrao(GEO) == "1.0.0"  # spec §5.3
    assert reg.versao_padrao(NORM) == "1.2.0"


@pytest.mark.parametrize(
    ("tipo", "versao"), [(NORM, "1.0.0"), (NORM, "1.1.0"), (NORM, "1.2.0"), (GEO, "1.0.0")]
)
def test_registry__schemas_are_valid_draft_2020_12(
    reg: registry.Registry, tipo: str, versao: str
) -> None:
    schema = reg.schema(tipo, versao)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False


def test_registry__valid_payloads_pass(reg: registry.Registry) -> None:
    assert reg.validar(GEO, payload_georreferenciada()) == "1.0.0"
    sem_coordenadas = payload_georreferenciada()
    del sem_coordenadas["coordenadas_lat"], sem_coordenadas["coordenadas_lng"]
    assert reg.validar(GEO, sem_coordenadas) == "1.0.0"
    completa = normalizada(
        idioma_detectado="pt-BR",
        termos_suspeitos=["x"],
        conteudo_suspeito=True,
        categoria_id="iluminacao",
        subcategoria_id="poste-apagado",
    )
    assert reg.validar(NORM, completa) == "1.2.0"
    minima = normalizada()
    del minima["entidades_extraidas"]
    for versao in ("1.0.0", "1.1.0", "1.2.0"):
        assert reg.validar(NORM, minima, versao) == versao


def test_registry__older_versions_refuse_fields_added_later(reg: registry.Registry) -> None:
    com_idioma = normalizada(idioma_detectado="pt-BR")
    with pytest.raises(errors.InvalidEvent, match="'idioma_detectado' is not part"):
        reg.validar(NORM, com_idioma, "1.0.0")
    assert reg.validar(NORM, com_idioma, "1.1.0") == "1.1.0"
    com_categoria = normalizada(categoria_id="iluminacao")
    with pytest.raises(errors.InvalidEvent, match="'categoria_id' is not part"):
        reg.validar(NORM, com_categoria, "1.1.0")
    assert reg.validar(NORM, com_categoria, "1.2.0") == "1.2.0"


@pytest.mark.parametrize(
    ("change", "campo"),
    [
        ({"demanda_id": "123"}, "demanda_id"),
        ({"demanda_id": "12345678123456781234567812345678"}, "demanda_id"),  # no hyphens
        ({"unidade_civica_id": "{12345678-1234-1234-1234-123456789012}"}, "unidade_civica_id"),
        ({"cadeia_ucs": []}, "cadeia_ucs"),
        ({"cadeia_ucs": ["nao-uuid"]}, "cadeia_ucs.0"),
        ({"nivel_minimo_resolvido": 0}, "nivel_minimo_resolvido"),
        ({"nivel_minimo_resolvido": 8}, "nivel_minimo_resolvido"),
        ({"nivel_minimo_resolvido": 2.5}, "nivel_minimo_resolvido"),
        ({"metodo_resolucao": "satelite"}, "metodo_resolucao"),
        ({"confianca_geo": "total"}, "confianca_geo"),
        ({"coordenadas_lat": 90.5}, "coordenadas_lat"),
        ({"coordenadas_lng": -180.1}, "coordenadas_lng"),
        ({"extra": 1}, "extra"),
    ],
)
def test_registry__invalid_georreferenciada_names_the_field(
    reg: registry.Registry, change: dict[str, Any], campo: str
) -> None:
    with pytest.raises(errors.InvalidEvent) as info:
        reg.validar(GEO, payload_georreferenciada(**change))
    mensagem = str(info.value)
    assert mensagem.startswith("invalid demanda.georreferenciada 1.0.0 payload: ")
    assert f"'{campo}'" in mensagem
    assert "\n" not in mensagem


def test_registry__missing_required_fields_each_named(reg: registry.Registry) -> None:
    payload = payload_georreferenciada()
    del payload["demanda_id"], payload["confianca_geo"]
    assert reg.erros(GEO, payload) == [
        "field 'confianca_geo' is required",
        "field 'demanda_id' is required",
    ]
    with pytest.raises(errors.InvalidEvent, match=r"'confianca_geo' is required \(and 1 more\)"):
        reg.validar(GEO, payload)


def test_registry__normalizada_nested_fields(reg: registry.Registry) -> None:
    with pytest.raises(errors.InvalidEvent, match=r"'coordenadas_validadas\.lat'"):
        reg.validar(NORM, normalizada(coordenadas_validadas={"lat": 91, "lng": 0}))
    with pytest.raises(errors.InvalidEvent, match=r"'coordenadas_validadas\.lng' is required"):
        reg.validar(NORM, normalizada(coordenadas_validadas={"lat": 1}))
    with pytest.raises(errors.InvalidEvent, match="confianca_normalizacao"):
        reg.validar(NORM, normalizada(confianca_normalizacao=1.5))
    with pytest.raises(errors.InvalidEvent, match="origem_normalizacao"):
        reg.validar(NORM, normalizada(origem_normalizacao="manual"))


def test_registry__not_an_object(reg: registry.Registry) -> None:
    with pytest.raises(errors.InvalidEvent, match=r"field '\(payload\)'"):
        reg.validar(GEO, ["nao", "objeto"])


def test_registry__unknown_type_or_version(reg: registry.Registry) -> None:
    with pytest.raises(errors.InvalidEvent, match=r"no schema registered for event type 'x\.y'"):
        reg.validar("x.y", {})
    with pytest.raises(errors.InvalidEvent, match=r"version '2.0.0' \(known: 1.0.0\)"):
        reg.validar(GEO, payload_georreferenciada(), "2.0.0")


def test_registry__refuses_a_bad_schema() -> None:
    ruim = {("t", "1.0.0"): {"type": "nao-existe"}}
    with pytest.raises(errors.D2Error, match=r"schema t 1\.0\.0 is invalid"):
        registry.Registry(ruim)


@given(
    nivel=st.integers(min_value=1, max_value=7),
    cadeia=st.lists(st.uuids(), min_size=1, max_size=7),
    lat=st.floats(min_value=-90, max_value=90),
    lng=st.floats(min_value=-180, max_value=180),
    metodo=st.sampled_from(["gps", "endereco", "inferencia"]),
    confianca=st.sampled_from(["alta", "media", "baixa"]),
    maiusculas=st.booleans(),
)
def test_registry__any_well_formed_georreferenciada_passes(
    nivel: int,
    cadeia: list[uuid.UUID],
    lat: float,
    lng: float,
    metodo: str,
    confianca: str,
    maiusculas: bool,
) -> None:
    ids = [str(u).upper() if maiusculas else str(u) for u in cadeia]
    payload = payload_georreferenciada(
        unidade_civica_id=ids[0],
        cadeia_ucs=ids,
        nivel_minimo_resolvido=nivel,
        coordenadas_lat=lat,
        coordenadas_lng=lng,
        metodo_resolucao=metodo,
        confianca_geo=confianca,
    )
    assert registry.validar(GEO, copy.deepcopy(payload)) == "1.0.0"


@given(texto=st.text(max_size=40))
def test_registry__non_uuid_strings_are_refused(texto: str) -> None:
    try:
        uuid_ok = str(uuid.UUID(texto)) == texto.lower() and len(texto) == 36
    except ValueError:
        uuid_ok = False
    erros = registry.registry().erros(GEO, payload_georreferenciada(demanda_id=texto))
    assert (erros == []) == uuid_ok


def test_registry__erros_lists_every_problem_or_nothing() -> None:
    assert registry.erros(GEO, "1.0.0", payload_georreferenciada()) == []
    assert registry.erros(GEO, None, payload_georreferenciada(confianca_geo="x", extra=1)) == [
        'field \'confianca_geo\': must be one of "alta", "media", "baixa"',
        "field 'extra' is not part of this version of the schema",
    ]


# --- no payload value in an error text ------------------------------------------------
# Error texts go to the dead letters and to ERROR logs, which more people read, and for
# longer, than the event log: they keep the field's path and the rule it breaks, never the
# value. A citizen's name, CPF and address, and coordinates, put in every field of every
# schema, in every shape.
PESSOAL = "Maria Souza, CPF 123.456.789-00, Rua das Acácias 45"
MARCAS = ("123.456.789-00", "Acácias", "98.765432", "46.633309", "23.55052", "12345678901")
HOSTIS: list[Any] = [
    PESSOAL,
    98.765432,
    -46.633309,
    12345678901,
    [-46.633309, -23.55052],
    [PESSOAL],
    {"endereco": PESSOAL, "lat": 98.765432},
    {PESSOAL: -46.633309},
    True,
    None,
]


def _caminhos(schema: dict[str, Any], prefixo: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every property path a schema names, objects' inner properties included."""
    caminhos = []
    for nome, sub in schema.get("properties", {}).items():
        caminhos.append((*prefixo, nome))
        if isinstance(sub, dict):
            caminhos += _caminhos(sub, (*prefixo, nome))
            if isinstance(sub.get("items"), dict):
                caminhos += _caminhos(sub["items"], (*prefixo, nome, "0"))
    return caminhos


def _com(caminho: tuple[str, ...], valor: Any) -> Any:
    """A payload holding valor at caminho (an array at a numeric step), other values
    hostile too."""
    if not caminho:
        return valor
    if caminho[0].isdigit():
        return [_com(caminho[1:], valor)]
    return {caminho[0]: _com(caminho[1:], valor), "tipo_lugar": "poligono_uc", PESSOAL: 1}


def _todos_os_casos() -> list[tuple[str, str, tuple[str, ...]]]:
    reg = registry.registry()
    return [
        (tipo, versao, caminho)
        for tipo in reg.tipos()
        for versao in reg.versoes(tipo)
        for caminho in [(), *_caminhos(reg.schema(tipo, versao))]
    ]


@pytest.mark.parametrize(
    ("tipo", "versao", "caminho"),
    _todos_os_casos(),
    ids=[f"{t}-{v}-{'.'.join(c) or 'payload'}" for t, v, c in _todos_os_casos()],
)
def test_registry__error_texts_never_carry_the_value(
    reg: registry.Registry, tipo: str, versao: str, caminho: tuple[str, ...]
) -> None:
    for valor in HOSTIS:
        payload = _com(caminho, valor)
        linhas = reg.erros(tipo, payload, versao)
        try:
            reg.validar(tipo, payload, versao)
        except errors.InvalidEvent as exc:
            linhas.append(str(exc))
        for linha in linhas:
            assert not any(m in linha for m in MARCAS), (valor, linha)
            assert "Maria" not in linha, (valor, linha)


@pytest.mark.parametrize(
    ("payload", "esperado"),
    [
        (
            normalizada(coordenadas_validadas={"lat": 98.765432, "lng": -46.633309}),
            "field 'coordenadas_validadas.lat': must be at most 90",
        ),
        (normalizada(demanda_id=PESSOAL), "field 'demanda_id': is not a valid uuid"),
        (normalizada(titulo=12345678901), "field 'titulo': must be of type string (got integer)"),
        (
            normalizada(origem_normalizacao=PESSOAL),
            'field \'origem_normalizacao\': must be one of "automatico", "hibrido"',
        ),
        (
            normalizada(entidades_extraidas={"endereco": 1, PESSOAL: 2}),
            "field 'entidades_extraidas.<key>' is not part of this version of the schema",
        ),
        (
            normalizada(entidades_extraidas={"rua_x": PESSOAL}),
            "field 'entidades_extraidas.rua_x' is not part of this version of the schema",
        ),
    ],
    ids=["maximum", "format", "type", "enum", "odd_key", "plain_key"],
)
def test_registry__error_texts_keep_the_path_and_the_rule(
    reg: registry.Registry, payload: dict[str, Any], esperado: str
) -> None:
    assert esperado in reg.erros(NORM, payload)
