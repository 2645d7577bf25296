"""The command line's naming rule (CONTRIBUTING.md, "Names"): commands and flags are
English but for the spec's nouns and the operator's actions on them, and each old
Portuguese spelling still parses to the very same arguments, so scripts written against
it keep working, while --help shows only the new name."""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

import d2.cli
from d2.cli import build_parser, common

# (command line with the new flag, the same with the old spelling)
PARES = [
    (["sample", "--output", "/tmp/x"], ["sample", "--saida", "/tmp/x"]),
    (["map", "--output", "m.html"], ["map", "--saida", "m.html"]),
    (
        ["regeorreferenciar", "--since", "2026-01-02", "--batch-size", "7"],
        ["regeorreferenciar", "--desde", "2026-01-02", "--lote", "7"],
    ),
    (["demo", "--events", "12"], ["demo", "--eventos", "12"]),
    (["dlq", "list", "--consumer", "D-2/replica"], ["dlq", "list", "--consumidor", "D-2/replica"]),
    (["import-ibge", "d", "--tolerance", "0,5"], ["import-ibge", "d", "--tolerancia", "0,5"]),
    (
        ["territorio", "aceitar", "6f1c", "--by", "ana"],
        ["territorio", "aceitar", "6f1c", "--por", "ana"],
    ),
    (
        ["nominatim", "import", "a.osm", "--create-web-role"],
        ["nominatim", "import", "a.osm", "--criar-papel-web"],
    ),
    (
        ["revisoes", "descartar", "6f1c", "--reason", "sem GPS"],
        ["revisoes", "descartar", "6f1c", "--motivo", "sem GPS"],
    ),
]


# (the command under its name, the same under an old spelling)
COMANDOS_ANTIGOS = [
    (["map", "--output", "m.html"], ["mapa", "--output", "m.html"]),
    (["geocoding", "list"], ["geocodificacoes", "list"]),
    (["mirror", "source", "core"], ["mirror", "fonte", "core"]),
    (["mirror", "publish-state"], ["mirror", "publicar-estado"]),
    (["territorio", "show", "6f1c"], ["territorio", "mostrar", "6f1c"]),
    (["territorio", "health"], ["territorio", "saude"]),
    (["territorio", "consume", "--drain"], ["territorio", "consumir", "--drain"]),
]


def _sem_handler(args: argparse.Namespace) -> dict[str, object]:
    # The command's name as typed (`command`, `<group>_command`) is what an old spelling
    # changes; nothing reads it, every argument after it must be the same.
    return {
        k: v
        for k, v in vars(args).items()
        if k not in ("handler", "acao") and not k.endswith("command")
    }


@pytest.mark.parametrize(
    ("novo", "antigo"),
    PARES + COMANDOS_ANTIGOS,
    ids=[" ".join(p[1]) for p in PARES + COMANDOS_ANTIGOS],
)
def test_old_spelling_parses_to_the_same_arguments(novo: list[str], antigo: list[str]) -> None:
    parser = build_parser()
    assert _sem_handler(parser.parse_args(novo)) == _sem_handler(parser.parse_args(antigo))


def test_every_alias_is_registered_and_hidden_from_help() -> None:
    parser = build_parser()
    antigos = {a for novo, antigo in PARES for a in antigo if a.startswith("--")} - {
        a for novo, _ in PARES for a in novo
    }
    assert set(common.APELIDOS) == antigos
    for novo, _ in PARES:
        comando = [a for a in novo if not a.startswith("-")][:2]
        texto = io.StringIO()
        with contextlib.redirect_stdout(texto), pytest.raises(SystemExit):
            parser.parse_args([*(c for c in comando if c in _comandos(parser)), "--help"])
        ajuda = texto.getvalue()
        for antigo in common.APELIDOS:
            assert antigo not in ajuda
        assert any(atual in ajuda for atual in common.APELIDOS.values())


def test_every_old_command_name_is_registered_and_hidden_from_help() -> None:
    parser = build_parser()
    assert set(common.COMANDOS_ANTIGOS) == {
        next(a for a, b in zip(antigo, novo, strict=False) if a != b)
        for novo, antigo in COMANDOS_ANTIGOS
    }
    for novo, _ in COMANDOS_ANTIGOS:
        grupo = [a for a in novo[:1] if a in ("mirror", "territorio", "geocoding")]
        texto = io.StringIO()
        with contextlib.redirect_stdout(texto), pytest.raises(SystemExit):
            parser.parse_args([*grupo, "--help"])
        for antigo in common.COMANDOS_ANTIGOS:
            assert not re.search(rf"\b{antigo}\b", texto.getvalue()), antigo


def test_maintainers_commands_stay_out_of_help() -> None:
    """`d2 db freeze|seal` are for writing migrations (CONTRIBUTING.md), not for users."""
    texto = io.StringIO()
    with contextlib.redirect_stdout(texto), pytest.raises(SystemExit):
        build_parser().parse_args(["db", "--help"])
    assert "freeze" not in texto.getvalue() and "seal" not in texto.getvalue()
    args = build_parser().parse_args(["db", "freeze", "20260101000000_x", "functions/a.sql"])
    assert args.paths == ["functions/a.sql"]


# The words command names are made of: English, the spec's nouns, and the operator's
# actions on them (aceitar, rejeitar, reprocessar, regeorreferenciar, atribuir, descartar).
PALAVRAS_COMANDO = {
    "bench", "cep", "conflicts", "consume", "db", "demo", "dlq", "freeze", "geocoding",
    "health", "ibge",
    "import", "list", "map", "migrate", "mirror", "nominatim", "osm", "publish",
    "rebuild", "resolve", "resume", "retry", "sample", "seal", "show", "source", "start", "state",
    "status", "stop", "sync", "url", "verify", "worker",
    "aceitar", "regeorreferenciar", "rejeitar", "reprocessar", "revisoes", "territorio",
    "atribuir", "descartar",
}  # fmt: skip


def test_every_command_is_english_or_a_spec_word() -> None:
    nomes = _comandos(build_parser()) - set(common.COMANDOS_ANTIGOS)
    fora = sorted(n for n in nomes if set(n.split("-")) - PALAVRAS_COMANDO)
    assert fora == []


def _comandos(parser: argparse.ArgumentParser) -> set[str]:
    nomes: set[str] = set()
    for acao in parser._actions:
        if isinstance(acao, argparse._SubParsersAction):
            for nome, sub in acao.choices.items():
                nomes.add(nome)
                nomes |= _comandos(sub)
    return nomes


# The words today's flags are made of. A new flag made of a word not here fails the
# test below: add the word if it is English (or one of the spec's nouns), otherwise
# name the flag in English and keep the other spelling with common.flag(...).
PALAVRAS = {
    "all", "batch", "by", "consumer", "create", "downgrade", "drain", "drop", "dry", "events",
    "help", "json", "level", "limit", "log", "no", "output", "password", "progress", "seed",
    "quick", "quiet", "removals", "revision", "role", "run", "show", "since", "size", "status",
    "threads", "tiles", "tolerance", "verbose", "wait", "web",
    "force",
    # geocode-quality's selection of the national address corpus
    "corpus", "form", "only", "uf",
    # which half of the users' corpora, and the commit read beside this one
    "part", "previous",
    # why an operator answers or discards a review (recorded)
    "reason",
    # process: the commit whose worker is the baseline
    "baseline", "commit",
    # the spec's nouns: IBGE layers and the civic unit
    "bairros", "municipios", "pais", "regioes", "ufs", "uc",
}  # fmt: skip


def test_every_flag_is_english_or_a_registered_alias() -> None:
    fora: list[str] = []

    def visitar(parser: argparse.ArgumentParser) -> None:
        for acao in parser._actions:
            if isinstance(acao, argparse._SubParsersAction):
                for sub in acao.choices.values():
                    visitar(sub)
            for opcao in acao.option_strings:
                if opcao.startswith("--") and opcao not in common.APELIDOS:
                    if set(opcao[2:].split("-")) - PALAVRAS:
                        fora.append(opcao)

    visitar(build_parser())
    assert fora == []


def test_command_modules_share_only_common_and_the_url() -> None:
    """Each command module registers its own commands; what they share lives in
    d2/cli/common.py, and the database URL is decided in d2/cli/database_url.py."""
    pasta = Path(d2.cli.__file__).parent
    for arquivo in pasta.glob("*.py"):
        if arquivo.stem in ("__init__", "__main__", "common"):
            continue
        for no in ast.walk(ast.parse(arquivo.read_text(encoding="utf-8"))):
            if isinstance(no, ast.ImportFrom) and no.module and no.module.startswith("d2.cli"):
                nomes = {n.name for n in no.names} if no.module == "d2.cli" else set()
                assert no.module == "d2.cli.common" or nomes == {"database_url"}, (
                    f"{arquivo.name} imports {no.module}"
                )


def test_json_flag_renders_the_same_data_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(json=True)
    common.emitir(args, {"a": 1, "b": [2]}, lambda d: f"a is {d['a']}")
    assert capsys.readouterr().out.strip().startswith("{")
    common.emitir(argparse.Namespace(json=False), {"a": 1}, lambda d: f"a is {d['a']}")
    assert capsys.readouterr().out == "a is 1\n"


@pytest.mark.parametrize(
    "comando",
    [
        ["revisoes", "list"],
        ["dlq", "list"],
        ["geocoding", "list"],
        ["territorio", "list"],
        ["territorio", "health"],
        ["map", "--output", "m.html"],
    ],
)
@pytest.mark.parametrize("valor", ["0", "-1", "dez"])
def test_limit__below_one_or_not_a_number_is_one_line_and_exit_2(
    comando: list[str], valor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as saiu:
        build_parser().parse_args([*comando, "--limit", valor])
    assert saiu.value.code == 2
    erro = capsys.readouterr().err.strip().splitlines()
    assert erro[-1].endswith(
        "argument --limit: "
        + ("must be at least 1" if valor != "dez" else "not a whole number: 'dez'")
    )
