"""Query-plan guards (STYLE: assert what the database does, not the text of a query).

After ANALYZE, the resolver probes the mirror's pieces through their GIST indexes, or by
key (the pieces a band's row lists for a gap), and never scans the pieces table
sequentially. The set-based resolver is a function with its
own settings (not inlined), so its plan is read from auto_explain's nested-statement
output (JSON), i.e. the plan the function really ran.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support import Conn
from tests.support.territorio import inserir_uc, poligono, quadrado, sincronizar_mirror


@pytest.fixture
def territorio_grande(conn: Conn) -> Conn:
    """A país with a 4,000-vertex border (many pieces) over a 30 x 30 grid of municípios."""
    ring = [
        (5 + 20 * math.cos(2 * math.pi * i / 4000), 5 + 20 * math.sin(2 * math.pi * i / 4000))
        for i in range(4000)
    ]
    pais = inserir_uc(conn, 7, "País", poligono([*ring, ring[0]]))
    with conn.transaction():
        for i in range(30):
            for j in range(30):
                inserir_uc(conn, 4, f"M{i}-{j}", poligono(quadrado(i / 3, j / 3, (i + 1) / 3,
                                                                   (j + 1) / 3)), pais)  # fmt: skip
    sincronizar_mirror(conn)  # the transaction's inserts, applied once
    conn.execute("ANALYZE d2.mirror_pieces")
    conn.execute("ANALYZE d2.mirror_cadeias")
    return conn


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _index_kinds(conn: Conn) -> dict[str, str]:
    rows = conn.execute(
        """
        SELECT c.relname AS name, am.amname AS kind
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid
        JOIN pg_am am ON am.oid = c.relam
        WHERE i.indrelid = 'd2.mirror_pieces'::regclass
        """
    ).fetchall()
    return {r["name"]: r["kind"] for r in rows}


def _assert_gist_only(conn: Conn, nodes: list[dict[str, Any]]) -> None:
    pieces = [n for n in nodes if n.get("Relation Name") == "mirror_pieces"]
    assert pieces, "the plan does not read d2.mirror_pieces at all"
    kinds = _index_kinds(conn)
    for node in pieces:
        assert node["Node Type"] in {"Index Scan", "Bitmap Heap Scan"}, node["Node Type"]
        if node["Node Type"] == "Index Scan" and node["Index Name"] != "mirror_pieces_pkey":
            assert kinds[node["Index Name"]] == "gist", node["Index Name"]
    bitmap = [n for n in nodes if n["Node Type"] == "Bitmap Index Scan"]
    assert all(kinds.get(n["Index Name"]) == "gist" for n in bitmap if n["Index Name"] in kinds)
    assert not [n for n in nodes if n["Node Type"] == "Seq Scan"
                and n.get("Relation Name") == "mirror_pieces"]  # fmt: skip


def test_plan__resolver_territorio_uses_gist(territorio_grande: Conn) -> None:
    conn = territorio_grande
    [row] = conn.execute(
        "EXPLAIN (FORMAT JSON) SELECT * FROM d2.resolver_territorio(%s, %s)", [3.5, 3.5]
    ).fetchall()
    plan = row["QUERY PLAN"][0]["Plan"]
    _assert_gist_only(conn, list(_nodes(plan)))


def test_plan__resolver_territorios_batch_uses_the_gist_tiers(territorio_grande: Conn) -> None:
    conn = territorio_grande
    planos: list[dict[str, Any]] = []

    def guardar(diag: psycopg.errors.Diagnostic) -> None:
        texto = diag.message_primary or ""
        if "plan:" in texto:
            planos.append(json.loads(texto.split("plan:", 1)[1]))

    conn.add_notice_handler(guardar)
    conn.execute("LOAD 'auto_explain'")
    conn.execute("SET auto_explain.log_min_duration = 0")
    conn.execute("SET auto_explain.log_nested_statements = on")
    conn.execute("SET auto_explain.log_format = 'json'")
    conn.execute("SET client_min_messages = log")
    lats = [j / 30 + 0.01 for j in range(300)] + [-12.0, 12.0, 40.0]
    lngs = [(j % 30) / 3 + 0.01 for j in range(300)] + [-12.0, 12.0, 40.0]
    rows = conn.execute(
        "SELECT * FROM d2.resolver_territorios(%s::float8[], %s::float8[])", [lats, lngs]
    ).fetchall()
    conn.execute("SET client_min_messages = notice")
    assert {r["nivel_minimo_resolvido"] for r in rows} == {4, 7}  # both tiers answered
    corpo = [p for p in planos if "mirror_pieces" in json.dumps(p)]
    assert corpo, "auto_explain reported no plan that reads d2.mirror_pieces"
    nodes = [n for p in corpo for n in _nodes(p["Plan"])]
    _assert_gist_only(conn, nodes)
    used = {n["Index Name"] for n in nodes if n.get("Relation Name") == "mirror_pieces"}
    assert used == {
        "mirror_pieces_pkey",  # the pieces a gap's list names, by key
        "mirror_pieces_geom_mun_sub_idx",
        "mirror_pieces_geom_sup_idx",
    }
    # The clean intervals come first, one B-tree probe per point, never a scan.
    faixas = [n for n in nodes if n.get("Relation Name") == "mirror_faixas"]
    assert faixas, "the batch resolver does not read d2.mirror_faixas"
    assert {(n["Node Type"], n.get("Index Name")) for n in faixas} == {
        ("Index Scan", "mirror_faixas_pkey")
    }


def test_plan__gist_index_names_exist(conn: Conn) -> None:
    kinds = _index_kinds(conn)
    for name in (
        "mirror_pieces_geom_idx",
        "mirror_pieces_geom_mun_sub_idx",
        "mirror_pieces_geom_sup_idx",
    ):
        assert kinds[name] == "gist"
