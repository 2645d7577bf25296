"""`d2 db url` prints no password unless asked: terminals and CI logs keep what it prints."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from d2 import cli


@pytest.mark.parametrize(
    ("url", "mascarada"),
    [
        (
            "postgresql://d2:s3cr%3Aet%40%2Fp%2540ss@db.example:5432/d2?sslmode=require",
            "postgresql://d2:***@db.example:5432/d2?sslmode=require",
        ),
        (
            "postgres://d2@/d2?host=/run/pg&password=s3cr%3Aet",
            "postgres://d2@/d2?host=/run/pg&password=***",
        ),
        ("host=db user=d2 password='s3cr et' dbname=d2", "host=db user=d2 password=*** dbname=d2"),
        ("postgresql://d2@/d2?host=/run/pg", "postgresql://d2@/d2?host=/run/pg"),
    ],
)
def test_db_url__masks_the_password_unless_asked(
    url: str, mascarada: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    assert cli.main(["db", "url"]) == 0
    saida = capsys.readouterr().out.strip()
    # The same connection parameters (conninfo's order is psycopg's), the password masked.
    assert conninfo_to_dict(saida) == conninfo_to_dict(mascarada)
    assert "s3cr" not in saida
    assert cli.main(["db", "url", "--show-password"]) == 0
    assert capsys.readouterr().out.strip() == url
