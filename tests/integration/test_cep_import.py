"""`d2 cep import`: CEP Aberto into schema d2, linked to the territory,
what was linked and what not with the reason, idempotent, one transaction, clear errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d2 import db, errors
from d2.importers import cep, sample, sample_cep
from tests.support import Conn, planos_aninhados


def _estado(conn: Conn) -> list[tuple[object, ...]]:
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT c.cep, c.bairro, c.logradouro, c.bairro_uc_id, l.uf, l.nome, "
            "l.municipio_uc_id, l.vinculo, c.xmin::text AS versao "
            "FROM d2.ceps c JOIN d2.cep_localidades l ON l.id = c.localidade_id ORDER BY c.cep"
        )
    ]


def test_cep_import__links_each_cep_and_says_why_not(conn: Conn, tmp_path: Path) -> None:
    sample.load_sample(conn.info.dsn)
    resumo = cep.importar(conn.info.dsn, sample_cep.write_dump(tmp_path / "d"))
    assert resumo.lidos == len(sample_cep.linhas()) == resumo.ceps
    assert {k: n for k, (_, n) in resumo.municipios.items()} == {
        "nome": 17, "distrito_faixa": 1, "distrito_nome": 1, "uf_ausente": 1}  # fmt: skip
    assert resumo.bairros["vinculado"] == 5  # Centro, Beira-Rio (2), Jardim das Flores...
    assert "ODbL" in resumo.format_text()
    linha = conn.execute(
        """
        SELECT l.vinculo, m.nome AS municipio, b.nome AS bairro
        FROM d2.ceps c JOIN d2.cep_localidades l ON l.id = c.localidade_id
        LEFT JOIN core.uc_polygons m ON m.unidade_civica_id = l.municipio_uc_id
        LEFT JOIN core.uc_polygons b ON b.unidade_civica_id = c.bairro_uc_id
        WHERE c.cep = %s
        """,
        ["78010500"],
    ).fetchone()
    assert linha == {"vinculo": "nome", "municipio": "Vila Aurora", "bairro": "Jardim das Flores"}
    distritos = {
        r["nome"]: (r["vinculo"], r["municipio"])
        for r in conn.execute(
            "SELECT l.nome, l.vinculo, m.nome AS municipio FROM d2.cep_localidades l "
            "LEFT JOIN core.uc_polygons m ON m.unidade_civica_id = l.municipio_uc_id "
            "WHERE l.vinculo <> 'nome'"
        )
    }
    assert distritos == {
        "Aurora do Norte": ("distrito_faixa", "Vila Aurora"),
        "Ribeirinha (Nova Boreal)": ("distrito_nome", "Nova Boreal"),
        "Brasília": ("uf_ausente", None),
    }


def test_cep_lookup__the_geocoders_ceps_are_found_by_the_index(conn: Conn, tmp_path: Path) -> None:
    """The geocoder's CEP query reaches d2.ceps by its primary key: asked with text[], the
    CHAR(8) column was cast and every round read all 1.14 M CEPs (~0.4 s each). Its
    statement runs inside d2.ceps_lidos, one generic plan per session."""
    sample.load_sample(conn.info.dsn)
    cep.importar(conn.info.dsn, sample_cep.write_dump(tmp_path / "d"))
    conn.execute("ANALYZE d2.ceps")
    planos = planos_aninhados(conn, db.q("cep_lookup"), {"ceps": ["78010500", "78010000"]})
    assert '"Index Name": "ceps_pkey"' in json.dumps(planos)
    achados = conn.execute(db.q("cep_lookup"), {"ceps": ["78010500"]}).fetchall()
    assert [r["cep"] for r in achados] == ["78010500"]


def test_cep_import__the_same_source_again_writes_nothing(conn: Conn, tmp_path: Path) -> None:
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")
    cep.importar(conn.info.dsn, dump)
    antes = _estado(conn)
    cep.importar(conn.info.dsn, dump)
    assert _estado(conn) == antes  # same rows, same row versions (xmin)


def test_cep_import__a_source_replaces_its_own_rows_only(conn: Conn, tmp_path: Path) -> None:
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")
    cep.importar(conn.info.dsn, dump)
    arquivo = next(dump.glob("bo.*"))
    with arquivo.open(encoding="utf-8", newline="") as f:
        linhas = list(csv.reader(f))
    with arquivo.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(linhas[1:])  # one CEP of Boreal gone from the source
    cep.importar(conn.info.dsn, dump)
    ceps = {r["cep"] for r in conn.execute("SELECT cep FROM d2.ceps")}
    assert linhas[0][0] not in ceps and len(ceps) == len(sample_cep.linhas()) - 1


def test_cep_import__fails_whole_with_a_one_line_reason(conn: Conn, tmp_path: Path) -> None:
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")
    with (dump / "zz.cepaberto_parte_1.csv").open("w", encoding="utf-8") as f:
        f.write("79002220,Rua X,,Centro,999,1\n")  # a city cities.csv does not list
    with pytest.raises(errors.ImportFailed, match=r"cidade_id '999'") as exc:
        cep.importar(conn.info.dsn, dump)
    assert "\n" not in str(exc.value)
    assert conn.execute("SELECT count(*) AS n FROM d2.ceps").fetchone() == {"n": 0}
    (dump / "cities.csv").unlink()
    with pytest.raises(errors.ImportFailed, match=r"needs cities\.csv"):
        cep.importar(conn.info.dsn, dump)
    with pytest.raises(errors.ImportFailed, match="no such file"):
        cep.importar(conn.info.dsn, tmp_path / "nada.csv")


def test_cep_import__the_command_prints_what_it_linked(db_url: str, tmp_path: Path) -> None:
    sample.load_sample(db_url)
    dump = sample_cep.write_dump(tmp_path / "d")
    saida = subprocess.run(
        [sys.executable, "-m", "d2.cli", "cep", "import", str(dump)],
        capture_output=True,
        text=True,
        env=os.environ | {"DATABASE_URL": db_url},
        timeout=120,
        check=False,
    )
    assert saida.returncode == 0, saida.stderr
    assert "linked by name and UF" in saida.stdout
    assert "NOT linked: the territory has no such UF" in saida.stdout
    assert "CEP Aberto" in saida.stdout and "ODbL" in saida.stdout
