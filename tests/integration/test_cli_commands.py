"""Every reading command of `d2` against a real database with something in it: the text
form prints what the data say and --json prints the same data as JSON (the one renderer,
d2/cli/common.py), and bad input is one line with exit 2."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys

import psycopg.conninfo
import pytest

from d2 import cli
from tests.support import Conn, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.nominatim_fixtures import NominatimAmostra
from tests.support.territorio import Territorio, sincronizar_mirror

# (command, a text its text form must show once the worker has drained three demands:
# one resolved, one in no polygon, one unreadable)
LEITURAS = [
    (["status"], "revis"),
    (["revisoes", "list"], "-20."),
    (["dlq", "list"], "pendente"),
    (["dlq", "list", "--consumer", "D-2"], "pendente"),
    (["mirror", "source"], "the mirror reads core"),
    (["mirror", "sync"], "changes applied"),
    (["mirror", "rebuild"], ""),
    (["territorio", "list"], "(nothing)"),
    (["territorio", "health"], "(nothing)"),
    (["geocoding", "list"], "no address demand is waiting"),
    (["regeorreferenciar", "--dry-run"], ""),
]


@pytest.fixture
def drenado(conn: Conn, db_url: str) -> Conn:
    Territorio(conn)
    sincronizar_mirror(conn)
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    inserir_evento(conn, payload_normalizada(-27.0, -20.0))
    inserir_evento(conn, {"demanda_id": "não é um uuid"})
    proc = subprocess.run(
        [sys.executable, "-m", "d2.cli", "worker", "--drain", "--json", "--log-level", "ERROR"],
        env=os.environ | {"DATABASE_URL": db_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(proc.stdout)["eventos"] == 3
    return conn


@pytest.mark.parametrize(("comando", "mostra"), LEITURAS, ids=[" ".join(c) for c, _ in LEITURAS])
def test_reading_command__text_and_json_render_the_same_state(
    drenado: Conn, comando: list[str], mostra: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(comando) == 0
    texto = capsys.readouterr().out
    assert mostra in texto and not texto.lstrip().startswith(("{", "["))
    _sem_repr(texto)
    assert cli.main([*comando, "--json"]) == 0
    dados = json.loads(capsys.readouterr().out)
    assert dados is not None


def test_json_forms_carry_the_drained_outcomes(
    drenado: Conn, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["dlq", "list", "--json"]) == 0
    [carta] = json.loads(capsys.readouterr().out)
    assert carta["status"] == "pendente" and carta["consumidor"] == "D-2"
    assert cli.main(["dlq", "list", "--consumidor", "D-2/replica", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert cli.main(["revisoes", "list", "--json"]) == 0
    [revisao] = json.loads(capsys.readouterr().out)
    assert float(revisao["coordenadas_lng"]) == -20.0
    assert cli.main(["resolve", "-27", "-49"]) == 0
    resolvido = json.loads(capsys.readouterr().out)
    assert [u["nome"] for u in resolvido["cadeia"]][:2] == ["Bairro A1", "Município A"]


@pytest.mark.parametrize(
    ("comando", "erro"),
    [
        (["regeorreferenciar", "--since", "ontem"], "not a date (YYYY-MM-DD): 'ontem'"),
        (["regeorreferenciar", "--uc", "x"], "not a UUID: 'x'"),
        (["dlq", "retry"], "give an EVENT_ID or --all"),
        (["geocoding", "retry"], "give an EVENT_ID or --all"),
        (["geocoding", "retry", "nao-uuid"], "not a UUID: 'nao-uuid'"),
        (["territorio", "show", "nao-uuid"], "not a UUID: 'nao-uuid'"),
    ],
)
def test_bad_input__one_line_and_exit_2(
    db_url: str, comando: list[str], erro: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(comando) == 2
    assert capsys.readouterr().err == f"d2: error: {erro}\n"


def _sem_repr(texto: str) -> None:
    """Text for a person: no dict, no Python repr, no Portuguese key of the JSON form."""
    for marca in ("{", "}", "datetime", "Decimal(", "None", "True", "False", "ultima_importacao"):
        assert marca not in texto


def test_nominatim_status__text_without_a_database_and_json_for_programs(
    conn: Conn,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    nenhum = psycopg.conninfo.make_conninfo(db_url, dbname="d2_no_such_nominatim")
    monkeypatch.setenv("D2_NOMINATIM_DSN", nenhum)
    monkeypatch.delenv("D2_NOMINATIM_URL", raising=False)
    conn.execute(
        "INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s, concluida_em)"
        " VALUES ('brasil.osm.pbf', 1500000000, 1234.5, '2026-12-05 04:05:06+00')"
    )
    assert cli.main(["nominatim", "status"]) == 3
    texto = capsys.readouterr().out
    _sem_repr(texto)
    assert "database d2_no_such_nominatim does not exist" in texto
    # The date as a date, in the operator's time zone, as `d2 status` shows dates.
    quando = datetime.datetime(2026, 12, 5, 4, 5, 6, tzinfo=datetime.UTC).astimezone()
    assert f"brasil.osm.pbf (1,500.0 MB) in 1234.5 s, finished {quando:%Y-%m-%d %H:%M:%S}" in texto
    assert cli.main(["nominatim", "status", "--json"]) == 3
    dados = json.loads(capsys.readouterr().out)
    assert dados["carregado"] is False
    assert dados["ultima_importacao"]["arquivo"] == "brasil.osm.pbf"


def test_nominatim_status__text_of_a_loaded_nominatim(
    db_url: str,
    nominatim_amostra: NominatimAmostra,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("D2_NOMINATIM_DSN", nominatim_amostra.dsn)
    monkeypatch.delenv("D2_NOMINATIM_URL", raising=False)
    assert cli.main(["nominatim", "status"]) == 0
    texto = capsys.readouterr().out
    _sem_repr(texto)
    assert cli.main(["nominatim", "status", "--json"]) == 0
    dados = json.loads(capsys.readouterr().out)
    assert f"{dados['lugares']:,} places, {dados['ruas_e_casas']:,} streets and houses" in texto
    assert f", version {dados['versao']}" in texto
    assert "last import: none recorded" in texto


def test_report_commands__a_sentence_for_people_and_json_for_programs(
    drenado: Conn, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Commands that act print what they did in a sentence; --json gives the counts."""
    inserir_evento(drenado, payload_normalizada(-27.0, -49.0))
    proc = subprocess.run(
        [sys.executable, "-m", "d2.cli", "worker", "--drain", "--log-level", "ERROR"],
        env=os.environ | {"DATABASE_URL": db_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert proc.stdout == "drained 1 events: 1 resolved\n"
    relatos = [
        (["dlq", "retry", "--all"], "1 dead letters retried: 0 handled now", "falharam", 1),
        (["revisoes", "reprocessar"], "1 reviews examined: 0 resolved", "continuam_pendentes", 1),
        (["territorio", "consume", "--drain"], "drawings handled: none", "nova", 0),
    ]
    for comando, frase, chave, valor in relatos:
        assert cli.main([*comando, "--log-level", "ERROR"]) == 0
        texto = capsys.readouterr().out
        _sem_repr(texto)
        assert texto.startswith(frase)
        assert cli.main([*comando, "--json", "--log-level", "ERROR"]) == 0
        assert json.loads(capsys.readouterr().out)[chave] == valor
