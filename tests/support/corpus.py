"""The bad-input corpus (docs/reliability.md, section 4): malformed demanda.normalizada
events and the outcome D-2 gives each, documented case by case.

Outcomes: the handler's terminal states (georreferenciada, sem_coordenadas,
coordenadas_invalidas, revisao_pendente, conflito, dead_letter) plus refused_by_event_log: the
event cannot even be published, because core.event_log's INSERT fails (jsonb refuses
bare NaN/Infinity tokens, "\\u0000", lone UTF-16 surrogates and JSON nested beyond
PostgreSQL's stack; the uuid PK refuses a repeated event_id; versao_schema is
VARCHAR(32)). The producer gets the error; D-2 never sees the event.

Territory (tests/support/territorio.py): lat -30..-10, lng -50..-30 is inside some UC;
(-27, -49) resolves to bairro A1; (10, 10) is outside every polygon.

Each case's `motivo` lists substrings of which one must appear in the log line's reason
(a dead letter's reason depends on whether its twin was in the same batch).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from tests.support.events import JsonBruto, payload_normalizada

GEORREFERENCIADA = "georreferenciada"
SEM_COORDENADAS = "sem_coordenadas"
COORDENADAS_INVALIDAS = "coordenadas_invalidas"
REVISAO_PENDENTE = "revisao_pendente"
CONFLITO = "conflito"
DEAD_LETTER = "dead_letter"
REFUSED_BY_EVENT_LOG = "refused_by_event_log"

OUTCOMES = (
    GEORREFERENCIADA,
    SEM_COORDENADAS,
    COORDENADAS_INVALIDAS,
    REVISAO_PENDENTE,
    CONFLITO,
    DEAD_LETTER,
    REFUSED_BY_EVENT_LOG,
)

_NS = uuid.UUID("6f0b1c7e-27d5-4b0a-9a53-0d2c1f1e0d2a")


def id_de(nome: str) -> str:
    """A deterministic demanda_id per case."""
    return str(uuid.uuid5(_NS, nome))


@dataclass(frozen=True)
class Caso:
    nome: str
    payload: Any  # a JSON value, or JsonBruto (text sent as is)
    esperado: str
    nota: str
    motivo: tuple[str, ...] = ()
    versao: str = "1.2.0"
    event_id: uuid.UUID | None = None
    correlacao_id: uuid.UUID | None = None
    origem: str = "D-1b"


def _valido(nome: str, lat: Any = -27.0, lng: Any = -49.0, **extra: Any) -> dict[str, Any]:
    return payload_normalizada(lat, lng, demanda_id=id_de(nome), **extra)


def _bruto_coordenadas(nome: str, lat: str, lng: str) -> JsonBruto:
    """A payload whose coordinates are raw JSON tokens (1e400, NaN, ...)."""
    return JsonBruto(
        f'{{"demanda_id": "{id_de(nome)}", "titulo": "x",'
        f' "coordenadas_validadas": {{"lat": {lat}, "lng": {lng}}}}}'
    )


def _bruto_titulo(nome: str, titulo: str) -> JsonBruto:
    return JsonBruto(
        f'{{"demanda_id": "{id_de(nome)}", "titulo": "{titulo}",'
        ' "coordenadas_validadas": {"lat": -27.0, "lng": -49.0}}'
    )


def _aninhado(nome: str, niveis: int) -> dict[str, Any]:
    """A valid payload with an extra field nested so that the payload has `niveis` levels."""
    valor: Any = "fundo"
    for _ in range(niveis - 1):
        valor = {"n": valor}
    return _valido(nome, extra=valor)


def _sem(nome: str, *campos: str) -> dict[str, Any]:
    payload = _valido(nome)
    for campo in campos:
        del payload[campo]
    return payload


def _coordenadas(nome: str, valor: Any) -> dict[str, Any]:
    payload = _valido(nome)
    payload["coordenadas_validadas"] = valor
    return payload


DUP = id_de("duplicata")
DUP_REVISAO = id_de("duplicata_revisao")
DUP_EVENT_ID = uuid.UUID("0f3e5a2c-1d7b-4e39-8c61-52a9d0b7e4f1")
CORRELACAO = uuid.UUID("7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5")

_U = id_de("maiusculas")

CASOS: tuple[Caso, ...] = (
    # --- the payload is not an object ---------------------------------------------------
    Caso(
        "payload_array", [1, 2], DEAD_LETTER, "top level must be an object", ("not a JSON object",)
    ),
    Caso("payload_string", "texto", DEAD_LETTER, "", ("not a JSON object",)),
    Caso("payload_number", 42, DEAD_LETTER, "", ("not a JSON object",)),
    Caso("payload_json_null", None, DEAD_LETTER, "jsonb 'null', not SQL NULL", ("not a JSON",)),
    Caso("payload_boolean", True, DEAD_LETTER, "", ("not a JSON object",)),
    Caso("payload_empty_object", {}, DEAD_LETTER, "", ("demanda_id missing",)),
    # --- demanda_id ---------------------------------------------------------------------
    Caso(
        "demanda_id_missing",
        _sem("demanda_id_missing", "demanda_id"),
        DEAD_LETTER,
        "",
        ("demanda_id missing",),
    ),
    Caso(
        "demanda_id_null",
        _valido("x") | {"demanda_id": None},
        DEAD_LETTER,
        "",
        ("demanda_id missing",),
    ),
    Caso(
        "demanda_id_empty_string",
        _valido("x") | {"demanda_id": ""},
        DEAD_LETTER,
        "",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_integer", _valido("x") | {"demanda_id": 12345}, DEAD_LETTER, "", ("not a UUID",)
    ),
    Caso(
        "demanda_id_free_text",
        _valido("x") | {"demanda_id": "não-é-uuid"},
        DEAD_LETTER,
        "",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_with_spaces",
        _valido("x") | {"demanda_id": f" {id_de('esp')} "},
        DEAD_LETTER,
        "surrounding spaces are not stripped",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_truncated",
        _valido("x") | {"demanda_id": id_de("trunc")[:-1]},
        DEAD_LETTER,
        "",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_object",
        _valido("x") | {"demanda_id": {"id": id_de("obj")}},
        DEAD_LETTER,
        "",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_array",
        _valido("x") | {"demanda_id": [id_de("arr")]},
        DEAD_LETTER,
        "",
        ("not a UUID",),
    ),
    Caso(
        "demanda_id_uppercase",
        _valido("x") | {"demanda_id": _U.upper()},
        GEORREFERENCIADA,
        "accepted (Python's uuid.UUID); stored and published in canonical lower case",
    ),
    Caso(
        "demanda_id_braces",
        _valido("x") | {"demanda_id": "{" + id_de("chaves") + "}"},
        GEORREFERENCIADA,
        "accepted leniently, canonical form published",
    ),
    Caso(
        "demanda_id_urn",
        _valido("x") | {"demanda_id": "urn:uuid:" + id_de("urn")},
        GEORREFERENCIADA,
        "accepted leniently, canonical form published",
    ),
    Caso(
        "demanda_id_hex_without_hyphens",
        _valido("x") | {"demanda_id": id_de("hex").replace("-", "")},
        GEORREFERENCIADA,
        "accepted leniently, canonical form published",
    ),
    Caso(
        "demanda_id_lone_surrogate",
        JsonBruto('{"demanda_id": "\\ud800", "coordenadas_validadas": null}'),
        REFUSED_BY_EVENT_LOG,
        "jsonb: invalid input syntax (lone UTF-16 surrogate)",
    ),
    Caso(
        "demanda_id_nul_escape",
        JsonBruto('{"demanda_id": "\\u0000", "coordenadas_validadas": null}'),
        REFUSED_BY_EVENT_LOG,
        "jsonb: unsupported Unicode escape sequence \\u0000",
    ),
    # --- versao_schema ------------------------------------------------------------------
    Caso(
        "versao_major_2",
        _valido("versao_major_2"),
        DEAD_LETTER,
        "D-2 reads 1.x only",
        ("unsupported versao_schema",),
        versao="2.0.0",
    ),
    Caso(
        "versao_major_0",
        _valido("versao_major_0"),
        DEAD_LETTER,
        "",
        ("unsupported versao_schema",),
        versao="0.9.0",
    ),
    Caso(
        "versao_empty",
        _valido("versao_empty"),
        DEAD_LETTER,
        "",
        ("unsupported versao_schema",),
        versao="",
    ),
    Caso(
        "versao_prefixed_v",
        _valido("versao_prefixed_v"),
        DEAD_LETTER,
        "",
        ("unsupported versao_schema",),
        versao="v1.2.0",
    ),
    Caso(
        "versao_two_parts",
        _valido("versao_two_parts"),
        DEAD_LETTER,
        "",
        ("unsupported versao_schema",),
        versao="1.2",
    ),
    Caso(
        "versao_future_minor",
        _valido("versao_future_minor"),
        GEORREFERENCIADA,
        "a later 1.x is read (additive minor versions)",
        versao="1.99.0",
    ),
    Caso("versao_1_0_0", _valido("versao_1_0_0"), GEORREFERENCIADA, "", versao="1.0.0"),
    Caso(
        "versao_trailing_newline",
        _valido("versao_trailing_newline"),
        DEAD_LETTER,
        "the whole string must be 1.x.y: a trailing newline is not a version",
        ("unsupported versao_schema",),
        versao="1.2.0\n",
    ),
    Caso(
        "versao_longer_than_column",
        _valido("versao_longer_than_column"),
        REFUSED_BY_EVENT_LOG,
        "versao_schema is VARCHAR(32)",
        versao="1." + "9" * 40 + ".0",
    ),
    # --- the coordinates object ---------------------------------------------------------
    Caso(
        "coordenadas_missing",
        _sem("coordenadas_missing", "coordenadas_validadas"),
        SEM_COORDENADAS,
        "spec 3.3 step 2: warn, processed, cursor",
    ),
    Caso("coordenadas_null", _coordenadas("coordenadas_null", None), SEM_COORDENADAS, ""),
    Caso(
        "coordenadas_empty_object",
        _coordenadas("coordenadas_empty_object", {}),
        COORDENADAS_INVALIDAS,
        "",
        ("lat must be a number",),
    ),
    Caso(
        "coordenadas_array",
        _coordenadas("coordenadas_array", [-27.0, -49.0]),
        COORDENADAS_INVALIDAS,
        "",
        ("not an object",),
    ),
    Caso(
        "coordenadas_string",
        _coordenadas("coordenadas_string", "-27.0,-49.0"),
        COORDENADAS_INVALIDAS,
        "",
        ("not an object",),
    ),
    Caso(
        "coordenadas_number",
        _coordenadas("coordenadas_number", 0),
        COORDENADAS_INVALIDAS,
        "",
        ("not an object",),
    ),
    Caso(
        "coordenadas_false",
        _coordenadas("coordenadas_false", False),
        COORDENADAS_INVALIDAS,
        "false is not 'missing'",
        ("not an object",),
    ),
    Caso(
        "coordenadas_geojson_point",
        _coordenadas("coordenadas_geojson_point", {"type": "Point", "coordinates": [-49, -27]}),
        COORDENADAS_INVALIDAS,
        "",
        ("lat must be a number",),
    ),
    # --- lat / lng values ---------------------------------------------------------------
    Caso(
        "lat_null",
        _valido("lat_null", lat=None),
        COORDENADAS_INVALIDAS,
        "null inside the object is invalid, not missing",
        ("lat must be a number",),
    ),
    Caso(
        "lng_missing",
        _coordenadas("lng_missing", {"lat": -27.0}),
        COORDENADAS_INVALIDAS,
        "",
        ("lng must be a number",),
    ),
    Caso(
        "lat_numeric_string",
        _valido("lat_numeric_string", lat="-27.0"),
        COORDENADAS_INVALIDAS,
        "strings are never parsed",
        ("lat must be a number, got str",),
    ),
    Caso(
        "lat_string_nan",
        _valido("lat_string_nan", lat="NaN"),
        COORDENADAS_INVALIDAS,
        "",
        ("must be a number",),
    ),
    Caso(
        "lng_string_infinity",
        _valido("lng_string_infinity", lng="Infinity"),
        COORDENADAS_INVALIDAS,
        "",
        ("must be a number",),
    ),
    Caso(
        "lat_string_minus_infinity",
        _valido("lat_string_minus_infinity", lat="-Infinity"),
        COORDENADAS_INVALIDAS,
        "",
        ("must be a number",),
    ),
    Caso(
        "lat_comma_decimal",
        _valido("lat_comma_decimal", lat="-27,5"),
        COORDENADAS_INVALIDAS,
        "",
        ("must be a number",),
    ),
    Caso(
        "lat_boolean",
        _valido("lat_boolean", lat=True),
        COORDENADAS_INVALIDAS,
        "booleans are not numbers",
        ("got bool",),
    ),
    Caso("lat_array", _valido("lat_array", lat=[-27.0]), COORDENADAS_INVALIDAS, "", ("got list",)),
    Caso(
        "lat_object",
        _valido("lat_object", lat={"valor": -27.0}),
        COORDENADAS_INVALIDAS,
        "",
        ("got dict",),
    ),
    Caso(
        "lat_raw_nan",
        _bruto_coordenadas("lat_raw_nan", "NaN", "-49"),
        REFUSED_BY_EVENT_LOG,
        "jsonb refuses the bare NaN token",
    ),
    Caso(
        "lng_raw_infinity",
        _bruto_coordenadas("lng_raw_infinity", "-27", "Infinity"),
        REFUSED_BY_EVENT_LOG,
        "jsonb refuses the bare Infinity token",
    ),
    Caso(
        "lat_raw_minus_infinity",
        _bruto_coordenadas("lat_raw_minus_infinity", "-Infinity", "-49"),
        REFUSED_BY_EVENT_LOG,
        "jsonb refuses the bare -Infinity token",
    ),
    Caso(
        "lat_raw_1e400",
        _bruto_coordenadas("lat_raw_1e400", "1e400", "-49"),
        COORDENADAS_INVALIDAS,
        "jsonb keeps it as numeric; Python reads a 401-digit int",
        ("too large",),
    ),
    Caso(
        "lng_raw_minus_1e400",
        _bruto_coordenadas("lng_raw_minus_1e400", "-27", "-1e400"),
        COORDENADAS_INVALIDAS,
        "",
        ("too large",),
    ),
    Caso(
        "lat_integer_10_pow_400",
        _valido("lat_integer_10_pow_400", lat=10**400),
        COORDENADAS_INVALIDAS,
        "",
        ("too large",),
    ),
    Caso(
        "lat_raw_1e5000",
        _bruto_coordenadas("lat_raw_1e5000", "1e5000", "-49"),
        DEAD_LETTER,
        "more digits than Python's int parser allows (4300): the payload is unreadable",
        ("payload unreadable",),
    ),
    Caso(
        "lat_raw_1e_minus_400",
        _bruto_coordenadas("lat_raw_1e_minus_400", "1e-400", "-49"),
        REVISAO_PENDENTE,
        "underflows to 0.0: a valid point, outside every polygon",
    ),
    Caso(
        "lat_above_90",
        _valido("lat_above_90", lat=90.000001),
        COORDENADAS_INVALIDAS,
        "",
        ("between -90 and 90",),
    ),
    Caso(
        "lng_below_minus_180",
        _valido("lng_below_minus_180", lng=-180.5),
        COORDENADAS_INVALIDAS,
        "",
        ("between -180 and 180",),
    ),
    Caso(
        "lat_90_lng_180_edges",
        _valido("lat_90_lng_180_edges", lat=90, lng=180),
        REVISAO_PENDENTE,
        "the range is inclusive; the pole is outside every UC",
    ),
    Caso(
        "coordinates_swapped",
        _valido("coordinates_swapped", lat=-49.0, lng=-27.0),
        REVISAO_PENDENTE,
        "a swap gives another valid point; D-2 cannot tell (here: the sea)",
    ),
    Caso(
        "coordinates_swapped_inside_another_uc",
        _valido("coordinates_swapped_inside_another_uc", lat=-29.0, lng=-31.0),
        GEORREFERENCIADA,
        "a swap that lands in a polygon resolves there (garbage in)",
    ),
    Caso(
        "lat_integer",
        _valido("lat_integer", lat=-27, lng=-49),
        GEORREFERENCIADA,
        "integers are numbers",
    ),
    Caso(
        "lat_many_digits",
        _bruto_coordenadas("lat_many_digits", "-27.0000000000000000000000000000001", "-49"),
        GEORREFERENCIADA,
        "rounded to float, then to 5 decimals",
    ),
    Caso(
        "point_on_shared_border",
        _valido("point_on_shared_border", lat=-27.0, lng=-45.0),
        GEORREFERENCIADA,
        "boundary-inclusive, ties by unidade_civica_id",
    ),
    Caso(
        "coordenadas_extra_keys",
        _coordenadas("coordenadas_extra_keys", {"lat": -27.0, "lng": -49.0, "precisao_m": 5}),
        GEORREFERENCIADA,
        "extra keys ignored",
    ),
    # --- the other fields ---------------------------------------------------------------
    Caso(
        "only_demanda_id_and_coordinates",
        {"demanda_id": id_de("minimo"), "coordenadas_validadas": {"lat": -27.0, "lng": -49.0}},
        GEORREFERENCIADA,
        "D-2 reads only demanda_id and coordenadas_validadas",
    ),
    Caso(
        "wrong_types_in_fields_d2_ignores",
        _valido("wrong_types", titulo=123, conteudo_suspeito="sim", confianca_normalizacao=[]),
        GEORREFERENCIADA,
        "fields D-2 does not read are not validated by it",
    ),
    Caso(
        "unknown_extra_fields",
        _valido("unknown_extra_fields", campo_novo={"a": [1, 2]}),
        GEORREFERENCIADA,
        "",
    ),
    Caso(
        "duplicate_key_in_json_text",
        JsonBruto(
            f'{{"demanda_id": "não-uuid", "demanda_id": "{id_de("chave_dupla")}",'
            ' "coordenadas_validadas": {"lat": -27.0, "lng": -49.0}}'
        ),
        GEORREFERENCIADA,
        "jsonb keeps the last of repeated keys",
    ),
    Caso(
        "emoji_and_accents",
        _valido("emoji", titulo="Árvore caída 🌳 — “rua” ção"),
        GEORREFERENCIADA,
        "",
    ),
    Caso(
        "titulo_lone_surrogate",
        _bruto_titulo("titulo_lone_surrogate", "\\udc00"),
        REFUSED_BY_EVENT_LOG,
        "jsonb: invalid input syntax (lone low surrogate)",
    ),
    Caso(
        "titulo_nul_escape",
        _bruto_titulo("titulo_nul_escape", "a\\u0000b"),
        REFUSED_BY_EVENT_LOG,
        "jsonb: unsupported Unicode escape sequence",
    ),
    Caso(
        "titulo_control_characters",
        _valido("controle", titulo="a\x01\x1f\tb\n"),
        GEORREFERENCIADA,
        "escaped control characters other than \\u0000 are fine",
    ),
    # --- size and depth -----------------------------------------------------------------
    Caso(
        "nested_20_levels",
        _aninhado("nested_20_levels", 20),
        GEORREFERENCIADA,
        "under D2_MAX_PAYLOAD_DEPTH (32)",
    ),
    Caso(
        "nested_40_levels",
        _aninhado("nested_40_levels", 40),
        DEAD_LETTER,
        "",
        ("nested deeper than 32",),
    ),
    Caso(
        "nested_5000_arrays",
        JsonBruto("[" * 5000 + "]" * 5000),
        DEAD_LETTER,
        "deeper than Python's JSON decoder recursion",
        ("payload unreadable",),
    ),
    Caso(
        "nested_100000_arrays",
        JsonBruto("[" * 100_000 + "]" * 100_000),
        REFUSED_BY_EVENT_LOG,
        "PostgreSQL: stack depth limit exceeded",
    ),
    Caso(
        "large_200_kb",
        _valido("large_200_kb", descricao_limpa="x" * 200_000),
        GEORREFERENCIADA,
        "under D2_MAX_PAYLOAD_BYTES (256 KiB)",
    ),
    Caso(
        "large_300_kb_string",
        _valido("large_300_kb", descricao_limpa="x" * 300_000),
        DEAD_LETTER,
        "",
        ("exceeds 262144",),
    ),
    Caso(
        "large_20000_keys",
        _valido("large_keys", extra={f"k{i:05d}": i for i in range(20_000)}),
        DEAD_LETTER,
        "",
        ("exceeds 262144",),
    ),
    # --- duplicates ---------------------------------------------------------------------
    Caso(
        "duplicate_original",
        payload_normalizada(-27.0, -49.0, demanda_id=DUP),
        GEORREFERENCIADA,
        "the first event of a demanda wins",
        event_id=DUP_EVENT_ID,
    ),
    Caso(
        "duplicate_retry_same_content",
        payload_normalizada(-27.0, -49.0, demanda_id=DUP),
        DEAD_LETTER,
        "same demanda_id and place under another event_id: a producer's retry "
        "(docs/design.md, decision 7)",
        ("repeated under event", "already resolved by event"),
    ),
    Caso(
        "duplicate_demanda_id_new_event_id",
        payload_normalizada(-26.0, -42.0, demanda_id=DUP),
        CONFLITO,
        "same demanda_id, another place: never first-wins, an operator decides",
        ("with other coordinates or address",),
    ),
    Caso(
        "duplicate_demanda_id_outside_polygons",
        payload_normalizada(10.0, 10.0, demanda_id=DUP),
        CONFLITO,
        "another place, outside every polygon: a conflict too, no review row",
        ("with other coordinates or address",),
    ),
    Caso(
        "duplicate_event_id",
        payload_normalizada(-27.0, -49.0),
        REFUSED_BY_EVENT_LOG,
        "event_id is the PK of core.event_log",
        event_id=DUP_EVENT_ID,
    ),
    Caso(
        "duplicate_review_original",
        payload_normalizada(10.0, 10.0, demanda_id=DUP_REVISAO),
        REVISAO_PENDENTE,
        "",
    ),
    Caso(
        "duplicate_review_retry_same_content",
        payload_normalizada(10.0, 10.0, demanda_id=DUP_REVISAO),
        DEAD_LETTER,
        "the demanda waits for a human under its first event; a retry changes nothing",
        ("repeated under event", "pending review under another event"),
    ),
    Caso(
        "duplicate_review_then_valid",
        payload_normalizada(-27.0, -49.0, demanda_id=DUP_REVISAO),
        CONFLITO,
        "another place for a demanda in review: a conflict, not a dead letter",
        ("with other coordinates or address",),
    ),
    # --- event envelope -----------------------------------------------------------------
    # --- who may publish it --------------------------------------------------------------
    Caso(
        "origem_not_allowed",
        _valido("origem_outra"),
        DEAD_LETTER,
        "only D2_DEMANDA_ORIGENS (D-1b) publishes demanda.normalizada (a first filter)",
        ("may not publish demanda.normalizada",),
        origem="D-4",
    ),
    Caso(
        "origem_empty",
        _valido("origem_vazia"),
        DEAD_LETTER,
        "",
        ("origem '' may not publish",),
        origem="",
    ),
    Caso(
        "correlacao_id_propagated",
        _valido("correlacao"),
        GEORREFERENCIADA,
        "the event's correlacao_id is kept (the invariant checker compares it)",
        correlacao_id=CORRELACAO,
    ),
)


def texto(caso: Caso) -> str:
    """The payload as the JSON text that goes into the INSERT."""
    return caso.payload if isinstance(caso.payload, JsonBruto) else json.dumps(caso.payload)


# A case name is its kind: no two alike.
assert len({c.nome for c in CASOS}) == len(CASOS)
assert all(c.esperado in OUTCOMES for c in CASOS)
