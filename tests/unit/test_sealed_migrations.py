"""Frozen migration SQL is sealed: what a migration installs is the text
under alembic/versions/sql/<revision>/, and alembic/versions/sql/SHA256SUMS holds the
hash of every such file. Editing one, deleting one or adding one without sealing it
fails here; `d2 db freeze REVISION PATH...` freezes the live file for
a new migration and seals it, never touching an existing entry."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from d2 import db, errors, migrations


def test_every_frozen_file_matches_its_sealed_hash() -> None:
    atuais, selados = migrations.hashes(), migrations.sealed()
    assert selados, "alembic/versions/sql/SHA256SUMS is missing"
    mudados = sorted(c for c in selados if c in atuais and atuais[c] != selados[c])
    assert mudados == [], "frozen SQL changed: restore it; a new migration freezes anew"
    assert sorted(set(selados) - set(atuais)) == [], "sealed files missing"
    assert sorted(set(atuais) - set(selados)) == [], "unsealed: d2 db seal"


def test_migrations_apply_only_frozen_sql() -> None:
    """No migration reads sql/ (the live definitions change; what it installed must not)."""
    versoes = migrations.script_location() / "versions"
    leitores = [
        p.name
        for p in sorted(versoes.glob("*.py"))
        if re.search(r"apply_file|sql_file|sql_dir", p.read_text(encoding="utf-8"))
    ]
    assert leitores == []


def test_every_frozen_path_a_migration_names_exists() -> None:
    versoes = migrations.script_location() / "versions"
    faltam = []
    for p in sorted(versoes.glob("*.py")):
        texto = p.read_text(encoding="utf-8")
        revisao = re.search(r'^revision = "([^"]+)"', texto, re.M)
        assert revisao is not None, p.name
        for relativo in re.findall(r'"((?:functions|views|triggers)/[\w.]+\.sql)"', texto):
            candidatos = [migrations.frozen_dir() / r / relativo for r in _revisoes(texto)]
            candidatos.append(migrations.frozen_dir() / revisao.group(1) / relativo)
            if not any(c.exists() for c in candidatos):
                faltam.append(f"{p.name}: {relativo}")
    assert faltam == []


def _revisoes(texto: str) -> list[str]:
    return re.findall(r'"(\d{14}_\w+)"', texto)


def test_freeze_refuses_to_overwrite_and_seal_refuses_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copia = tmp_path / "alembic"  # a copy of the tree: the real one stays as committed
    shutil.copytree(migrations.script_location(), copia)
    monkeypatch.setattr(migrations, "script_location", lambda: copia)
    alvo = next(
        c for c in sorted(migrations.sealed()) if (db.sql_dir() / c.split("/", 1)[1]).exists()
    )
    revisao, relativo = alvo.split("/", 1)
    with pytest.raises(errors.D2Error, match="already frozen"):
        migrations.freeze(revisao, [relativo])
    original = (migrations.frozen_dir() / alvo).read_bytes()
    (migrations.frozen_dir() / alvo).write_text("-- changed\n")
    with pytest.raises(errors.D2Error, match=re.escape(alvo)):
        migrations.seal()
    (migrations.frozen_dir() / alvo).write_bytes(original)
    antes = migrations.sealed()
    assert migrations.freeze("29991231000000_nova", [relativo]) == [
        f"29991231000000_nova/{relativo}"
    ]
    depois = migrations.sealed()
    assert {c: h for c, h in depois.items() if c in antes} == antes
    assert set(depois) - set(antes) == {f"29991231000000_nova/{relativo}"}
