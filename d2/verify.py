"""`d2 db verify`: are the migrations, functions and indexes in place, and is nothing of
D-2's outside schema d2 beyond what docs/monolith.md lists (d2/footprint.py)?"""

from __future__ import annotations

from typing import Any

from d2 import db, errors, footprint, migrations

# (description, query returning one boolean column "ok")
_CHECKS = "verify_checks"


def fora_do_d2(conn: db.Connection) -> list[tuple[str, str]]:
    """(kind, name) found outside schema d2 where D-2 puts things but not in the list."""
    achados = {(r["kind"], r["name"]) for r in conn.execute(db.q("footprint_catalog"))}
    return sorted(achados - footprint.chaves())


def verify(url: str) -> dict[str, Any]:
    """Run every check of sql/queries/verify.sql; ok only when all pass.

    Raises errors.D2Error (one line) when the role cannot read the migration state, as
    d2_worker cannot: verify is the migrating role's check of its own work.
    """
    with db.connect(url) as conn:
        papel = conn.execute(db.q("verify_role")).fetchone()
    if papel is not None and not papel["ok"]:
        raise errors.D2Error(
            f"d2 db verify needs the role that runs the migrations: {papel['papel']} "
            "cannot read public.d2_alembic_version"
        )
    results: list[dict[str, Any]] = []
    at = migrations.current(url)
    expected = migrations.head()
    results.append({"check": f"migrations at head ({expected})", "ok": at == expected})
    with db.connect(url) as conn:
        for row in conn.execute(db.q(_CHECKS)).fetchall():
            results.append({"check": row["check"], "ok": bool(row["ok"])})
        writable = migrations.writable_schemas(conn)
        results.append(
            {
                "check": "no other role may CREATE where D-2's definer functions resolve names"
                + (f" (writable: {', '.join(writable)})" if writable else ""),
                "ok": not writable,
            }
        )
        extras = fora_do_d2(conn)
    descricao = "nothing outside schema d2 beyond docs/monolith.md's list"
    if extras:
        descricao += ": also " + ", ".join(f"{kind} {name}" for kind, name in extras)
    results.append({"check": descricao, "ok": not extras, "extras": extras})
    return {"ok": all(r["ok"] for r in results), "checks": results}
