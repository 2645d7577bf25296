"""`d2 db verify`: are the migrations, functions and indexes in place?"""

from __future__ import annotations

from typing import Any

from d2 import db, migrations

# (description, query returning one boolean column "ok")
_CHECKS = "verify_checks"


def verify(url: str) -> dict[str, Any]:
    """Run every check of sql/queries/verify.sql; ok only when all pass."""
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
    return {"ok": all(r["ok"] for r in results), "checks": results}
