"""The Registry: JSON Schemas (draft 2020-12) of the events D-2 reads and writes.

One file per (type, version) in d2/eventlog/registry/schemas/, named `<tipo>-<versao>.json`, whose
`x-tipo` and `x-versao` must agree with the name. Formats are checked ("uuid" included),
and uuid fields also carry a pattern, so a non-UUID string is refused even by a validator
that ignores formats.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any, cast

import fastjsonschema
import jsonschema
import jsonschema.exceptions

from d2 import errors

# The version a publisher gets when it names none (spec §5.3 for demanda.georreferenciada;
# the current catalogue version for demanda.normalizada, spec §3.1).
VERSOES_PADRAO: dict[str, str] = {
    "demanda.georreferenciada": "1.0.0",
    "demanda.normalizada": "1.2.0",
}

_Validator = jsonschema.Draft202012Validator

# Keywords whose meaning is the same in every draft: a schema made only of these can be
# checked by fastjsonschema's generated code (the worker checks every event it publishes;
# see d2/bench/drain.py), and jsonschema then only explains a failure.
_PALAVRAS_SEGURAS = frozenset(
    {
        "$schema", "$id", "title", "description", "examples", "type", "properties",
        "required", "additionalProperties", "enum", "const", "pattern", "format",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems",
        "maxItems", "minLength", "maxLength", "uniqueItems",
    }
)  # fmt: skip


def _so_palavras_seguras(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    for chave, valor in schema.items():
        if chave.startswith("x-"):
            continue
        if chave not in _PALAVRAS_SEGURAS:
            return False
        if chave == "properties" and not all(map(_so_palavras_seguras, valor.values())):
            return False
        if chave in ("items", "additionalProperties") and not _so_palavras_seguras(valor):
            return False
    return True


# The canonical form, which uuid.UUID always accepts: matching it spares building a UUID
# for each of the several uuid fields of every published event. Anything else still goes
# to uuid.UUID, so the accepted set stays exactly its own, quirks included: braces,
# "urn:uuid:", hyphens anywhere or none, and whatever int(..., 16) tolerates
# (surrounding whitespace, "_" between digits, "0x"). The schemas' patterns refuse those.
_UUID_CANONICO = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


# Remembered: most uuids a published event carries are the same few UC ids (its
# cadeia_ucs), checked again in every event.
@functools.lru_cache(maxsize=8192)
def _e_uuid(valor: str) -> bool:
    if _UUID_CANONICO.fullmatch(valor) is not None:
        return True
    try:
        uuid.UUID(valor)
    except ValueError:
        return False
    return True


def _rapido(schema: dict[str, Any]) -> Callable[[Any], Any] | None:
    """fastjsonschema's compiled check, or None when the schema uses other keywords."""
    if not _so_palavras_seguras(schema):
        return None
    sem_rascunho = {k: v for k, v in schema.items() if k != "$schema"}
    return fastjsonschema.compile(sem_rascunho, formats={"uuid": _e_uuid})


def _chave_versao(versao: str) -> tuple[int, ...]:
    return tuple(int(parte) for parte in versao.split("."))


class Registry:
    """Schemas by (tipo, versao), each with its compiled validator."""

    def __init__(self, schemas: Mapping[tuple[str, str], dict[str, Any]]) -> None:
        self._schemas = dict(schemas)
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}
        self._rapidos: dict[tuple[str, str], Callable[[Any], Any] | None] = {}
        for chave, schema in self._schemas.items():
            try:
                _Validator.check_schema(schema)
            except jsonschema.exceptions.SchemaError as exc:
                raise errors.D2Error(
                    f"schema {chave[0]} {chave[1]} is invalid: {exc.message}"
                ) from exc
            self._validators[chave] = _Validator(schema, format_checker=_Validator.FORMAT_CHECKER)
            self._rapidos[chave] = _rapido(schema)

    @classmethod
    def carregar(cls) -> Registry:
        """The schemas shipped in the package."""
        pasta = importlib.resources.files(__name__).joinpath("schemas")
        schemas: dict[tuple[str, str], dict[str, Any]] = {}
        for arquivo in pasta.iterdir():
            if not arquivo.name.endswith(".json"):
                continue
            schema = json.loads(arquivo.read_text(encoding="utf-8"))
            tipo, versao = schema.get("x-tipo"), schema.get("x-versao")
            if arquivo.name != f"{tipo}-{versao}.json":
                raise errors.D2Error(
                    f"schema file {arquivo.name} declares x-tipo={tipo!r} x-versao={versao!r}"
                )
            schemas[(tipo, versao)] = schema
        return cls(schemas)

    def tipos(self) -> list[str]:
        return sorted({tipo for tipo, _ in self._schemas})

    def versoes(self, tipo: str) -> list[str]:
        """The versions of one type, oldest first."""
        return sorted((v for t, v in self._schemas if t == tipo), key=_chave_versao)

    def versao_padrao(self, tipo: str) -> str:
        """The version used when a publisher names none (the newest, unless pinned)."""
        if tipo in VERSOES_PADRAO:
            return VERSOES_PADRAO[tipo]
        versoes = self.versoes(tipo)
        if not versoes:
            raise errors.InvalidEvent(f"no schema registered for event type {tipo!r}")
        return versoes[-1]

    def schema(self, tipo: str, versao: str) -> dict[str, Any]:
        try:
            return self._schemas[(tipo, versao)]
        except KeyError:
            raise self._desconhecido(tipo, versao) from None

    def erros(self, tipo: str, payload: Any, versao: str | None = None) -> list[str]:
        """Every problem of payload against its schema, one line each, most useful first."""
        versao = versao or self.versao_padrao(tipo)
        validator = self._validators.get((tipo, versao))
        if validator is None:
            raise self._desconhecido(tipo, versao)
        rapido = self._rapidos.get((tipo, versao))
        if rapido is not None:
            try:
                rapido(payload)
                return []
            except fastjsonschema.JsonSchemaException:
                pass  # jsonschema below says what is wrong, in our words
        encontrados = sorted(validator.iter_errors(payload), key=_relevancia)
        linhas: list[str] = []
        for erro in encontrados:
            linha = _descrever(erro)
            if linha not in linhas:
                linhas.append(linha)
        return linhas

    def validar(self, tipo: str, payload: Any, versao: str | None = None) -> str:
        """Check payload; return the version used. Raises InvalidEvent naming the field."""
        versao = versao or self.versao_padrao(tipo)
        problemas = self.erros(tipo, payload, versao)
        if problemas:
            mais = f" (and {len(problemas) - 1} more)" if len(problemas) > 1 else ""
            raise errors.InvalidEvent(f"invalid {tipo} {versao} payload: {problemas[0]}{mais}")
        return versao

    def _desconhecido(self, tipo: str, versao: str) -> errors.InvalidEvent:
        conhecidas = self.versoes(tipo)
        if not conhecidas:
            return errors.InvalidEvent(f"no schema registered for event type {tipo!r}")
        return errors.InvalidEvent(
            f"no schema for {tipo} version {versao!r} (known: {', '.join(conhecidas)})"
        )


# A property name shown in an error: the schema's own names are identifiers; a producer's
# extra key may be anything (a name, an address), so only an identifier is shown.
_NOME_DE_CAMPO = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

# JSON's names for the Python types a decoded payload holds.
_TIPOS_JSON: dict[type, str] = {
    str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
    dict: "object", type(None): "null",
}  # fmt: skip


def _parte(parte: object) -> str:
    if isinstance(parte, int) or _NOME_DE_CAMPO.fullmatch(str(parte)):
        return str(parte)
    return "<key>"


def _campo(erro: jsonschema.exceptions.ValidationError) -> str:
    """The JSON path of the field at fault: for a missing property, the property itself."""
    partes = [_parte(p) for p in erro.absolute_path]
    if erro.validator == "required" and isinstance(erro.validator_value, list):
        presentes = erro.instance if isinstance(erro.instance, dict) else {}
        # One error per missing property; its message starts with that property's repr.
        ausente = next(
            (
                p
                for p in erro.validator_value
                if p not in presentes and erro.message.startswith(repr(p))
            ),
            None,
        )
        if ausente is not None:
            partes.append(_parte(ausente))
    if erro.validator == "additionalProperties" and isinstance(erro.instance, dict):
        conhecidos = erro.schema.get("properties", {}) if isinstance(erro.schema, dict) else {}
        extras = sorted(str(k) for k in erro.instance if k not in conhecidos)
        if extras:
            partes.append(_parte(extras[0]))
    return ".".join(partes) or "(payload)"


def _json(valor: Any) -> str:
    return json.dumps(valor, ensure_ascii=False)


# Rules whose text needs only the schema's own value (a bound, a format's name).
_REGRAS: dict[str, str] = {
    "format": "is not a valid {}",
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be more than {}",
    "exclusiveMaximum": "must be less than {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "must have at least {} characters",
    "maxLength": "must have at most {} characters",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "minProperties": "must have at least {} properties",
    "maxProperties": "must have at most {} properties",
}


def _regra(erro: jsonschema.exceptions.ValidationError) -> str:
    """The rule the value breaks, in the schema's terms: never the value itself, which may
    be a citizen's address, name or position (jsonschema's own messages start with it)."""
    regra, limite = str(erro.validator), cast(Any, erro.validator_value)
    if regra in _REGRAS:
        return _REGRAS[regra].format(limite)
    if regra == "type":
        tipos = limite if isinstance(limite, list) else [limite]
        recebido = _TIPOS_JSON.get(type(erro.instance), "another type")
        return f"must be of type {' or '.join(map(str, tipos))} (got {recebido})"
    if regra == "enum":
        return "must be one of " + ", ".join(_json(v) for v in limite)
    if regra == "const":
        return f"must be {_json(limite)}"
    if regra == "pattern":
        return "does not match the schema's pattern"
    if regra == "uniqueItems":
        return "must not repeat an item"
    return f"breaks the schema's {regra!r} rule"


def _descrever(erro: jsonschema.exceptions.ValidationError) -> str:
    campo = _campo(erro)
    if erro.validator == "required":
        return f"field '{campo}' is required"
    if erro.validator == "additionalProperties":
        return f"field '{campo}' is not part of this version of the schema"
    if erro.validator == "pattern" and isinstance(erro.schema, dict) and erro.schema.get("format"):
        return f"field '{campo}': is not a valid {erro.schema['format']}"
    return f"field '{campo}': {_regra(erro)}"


def _relevancia(erro: jsonschema.exceptions.ValidationError) -> tuple[int, str, int]:
    # Missing fields first, then by field path; a format error before its pattern twin.
    ordem = {"required": 0, "type": 1, "format": 2}.get(str(erro.validator), 3)
    return (0 if erro.validator == "required" else 1, _campo(erro), ordem)


@functools.cache
def registry() -> Registry:
    """The package's Registry, loaded once."""
    return Registry.carregar()


def validar(tipo: str, payload: Any, versao: str | None = None) -> str:
    """Validate with the package's Registry; returns the version used."""
    return registry().validar(tipo, payload, versao)


def erros(tipo: str, versao: str | None, payload: Any) -> list[str]:
    """Every problem of payload against tipo's schema at versao (None: the default
    version), one line each; [] when valid. For checks that want all problems at once.
    """
    return registry().erros(tipo, payload, versao)
