"""d2.resolver_territorio on hand-built polygons (docs/design.md, decisions 1-4)."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support import Conn
from tests.support.territorio import (
    Territorio,
    inserir_uc,
    multipoligono,
    poligono,
    quadrado,
    sincronizar_mirror,
)


def resolver(conn: Conn, lat: float, lng: float) -> list[dict[str, Any]]:
    return conn.execute("SELECT * FROM d2.resolver_territorio(%s, %s)", [lat, lng]).fetchall()


def test_resolver__point_in_bairro_gives_level_2_and_chain_to_7(
    conn: Conn, territorio: Territorio
) -> None:
    [row] = resolver(conn, -27.0, -49.0)
    assert row["unidade_civica_id"] == territorio.bairro_a1
    assert row["nivel_minimo_resolvido"] == 2
    assert row["cadeia_ucs"] == territorio.cadeia_a1


def test_resolver__municipality_without_bairros_gives_level_4(
    conn: Conn, territorio: Territorio
) -> None:
    """Spec T14: no level 1-3 polygon ⇒ level 4, and the chain starts at level 4."""
    [row] = resolver(conn, -27.0, -42.0)
    assert row["nivel_minimo_resolvido"] == 4
    assert row["cadeia_ucs"][0] == territorio.mun_b
    assert row["cadeia_ucs"] == [
        territorio.mun_b,
        territorio.uf,
        territorio.regiao,
        territorio.brasil,
    ]


def test_resolver__point_on_shared_border_is_deterministic(
    conn: Conn, territorio: Territorio
) -> None:
    """lng = -45 is the border of município A (bairro A2) and município B."""
    answers = {
        tuple(map(str, r["cadeia_ucs"]))
        for r in (resolver(conn, -27.0, -45.0)[0] for _ in range(20))
    }
    assert len(answers) == 1
    [row] = resolver(conn, -27.0, -45.0)
    # Boundary-inclusive: the bairro A2 (level 2) contains the border point and wins.
    assert row["unidade_civica_id"] == territorio.bairro_a2


def test_resolver__tie_between_equal_levels_breaks_by_uc_id(conn: Conn) -> None:
    low = uuid.UUID(int=1)
    high = uuid.UUID(int=2)
    inserir_uc(conn, 4, "Alto", poligono(quadrado(0, 0, 1, 1)), uc=high)
    inserir_uc(conn, 4, "Baixo", poligono(quadrado(1, 0, 2, 1)), uc=low)
    [row] = resolver(conn, 0.5, 1.0)
    assert row["unidade_civica_id"] == low


def test_resolver__point_on_subdivision_cut_line_still_resolves(conn: Conn) -> None:
    # A circle-ish polygon with many vertices is cut into many pieces.
    import math

    ring = [
        (10 + 5 * math.cos(2 * math.pi * i / 2000), 10 + 5 * math.sin(2 * math.pi * i / 2000))
        for i in range(2000)
    ]
    ring.append(ring[0])
    uc = inserir_uc(conn, 4, "Redondo", poligono(ring))
    pieces = conn.execute(
        "SELECT count(*) AS n FROM d2.mirror_pieces WHERE unidade_civica_id = %s", [uc]
    ).fetchone()
    assert pieces is not None and pieces["n"] > 8
    # Points on the edges shared by pieces (cut lines), found from the pieces themselves.
    cuts = conn.execute(
        """
        SELECT ST_Y(pt) AS lat, ST_X(pt) AS lng FROM (
            SELECT ST_PointOnSurface(ST_Intersection(a.geom, b.geom)) AS pt
            FROM d2.mirror_pieces a JOIN d2.mirror_pieces b
              ON a.id < b.id AND a.unidade_civica_id = b.unidade_civica_id
             AND ST_Touches(a.geom, b.geom)
            WHERE a.unidade_civica_id = %s
        ) s
        WHERE NOT ST_IsEmpty(pt)
          AND round(ST_X(pt)::numeric, 5) = ST_X(pt)::numeric
          AND round(ST_Y(pt)::numeric, 5) = ST_Y(pt)::numeric
        LIMIT 20
        """,
        [uc],
    ).fetchall()
    assert cuts, "expected cut lines with points on the 5-decimal grid"
    for cut in cuts:
        [row] = resolver(conn, cut["lat"], cut["lng"])
        assert row["unidade_civica_id"] == uc


def test_resolver__point_outside_everything_gives_no_row(
    conn: Conn, territorio: Territorio
) -> None:
    assert resolver(conn, 10.0, 10.0) == []


def test_resolver__broken_parent_gives_partial_chain(conn: Conn) -> None:
    missing = uuid.uuid4()
    uf = inserir_uc(conn, 5, "UF órfã", poligono(quadrado(0, 0, 10, 10)), missing)
    mun = inserir_uc(conn, 4, "Município", poligono(quadrado(0, 0, 5, 5)), uf)
    [row] = resolver(conn, 1.0, 1.0)
    assert row["cadeia_ucs"] == [mun, uf]


def test_resolver__parent_cycle_terminates(conn: Conn) -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    inserir_uc(conn, 4, "A", poligono(quadrado(0, 0, 5, 5)), b, uc=a)
    inserir_uc(conn, 5, "B", poligono(quadrado(0, 0, 10, 10)), a, uc=b)
    [row] = resolver(conn, 1.0, 1.0)
    assert row["cadeia_ucs"] == [a, b]


def test_resolver__self_intersecting_polygon_is_repaired(conn: Conn) -> None:
    # A bow-tie: invalid; ST_MakeValid turns it into two triangles.
    bowtie = poligono([(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)])
    uc = inserir_uc(conn, 4, "Gravata", bowtie)
    mirrored = conn.execute(
        "SELECT reparada FROM d2.mirror_uc WHERE unidade_civica_id = %s", [uc]
    ).fetchone()
    assert mirrored == {"reparada": True}
    [row] = resolver(conn, 1.0, 0.2)
    assert row["unidade_civica_id"] == uc


def test_resolver__unreadable_geometry_is_skipped_with_warning(conn: Conn) -> None:
    notices: list[str] = []
    conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
    uc = inserir_uc(conn, 4, "Linha", {"type": "LineString", "coordinates": [[0, 0], [1, 1]]})
    rejected = conn.execute(
        "SELECT motivo FROM d2.mirror_rejected WHERE unidade_civica_id = %s", [uc]
    ).fetchone()
    assert rejected is not None and "poligonal" in rejected["motivo"]
    assert any("ignorado" in n for n in notices)
    assert resolver(conn, 0.5, 0.5) == []


def test_resolver__changing_a_polygon_changes_the_next_answer(
    conn: Conn, territorio: Territorio
) -> None:
    [before] = resolver(conn, -27.0, -42.0)
    assert before["unidade_civica_id"] == territorio.mun_b
    novo = uuid.uuid4()
    inserir_uc(
        conn, 2, "Bairro B1", poligono(quadrado(-45, -30, -40, -25)), territorio.mun_b, uc=novo
    )
    [after] = resolver(conn, -27.0, -42.0)
    assert after["unidade_civica_id"] == novo
    conn.execute(
        "UPDATE core.uc_polygons SET geometria = %s::jsonb WHERE unidade_civica_id = %s",
        ['{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}', novo],
    )
    sincronizar_mirror(conn)
    [moved] = resolver(conn, -27.0, -42.0)
    assert moved["unidade_civica_id"] == territorio.mun_b
    conn.execute("DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s", [territorio.mun_b])
    sincronizar_mirror(conn)
    [gone] = resolver(conn, -27.0, -42.0)
    assert gone["unidade_civica_id"] == territorio.uf


def test_resolver__multipolygon_island(conn: Conn) -> None:
    uc = inserir_uc(
        conn,
        4,
        "Ilha",
        multipoligono([quadrado(0, 0, 1, 1)], [quadrado(5, 5, 6, 6)]),
    )
    assert resolver(conn, 5.5, 5.5)[0]["unidade_civica_id"] == uc
    assert resolver(conn, 3.0, 3.0) == []


def test_resolver__hole_is_outside(conn: Conn) -> None:
    uc = inserir_uc(conn, 4, "Anel", poligono(quadrado(0, 0, 10, 10), quadrado(4, 4, 6, 6)[::-1]))
    assert resolver(conn, 5.0, 5.0) == []
    assert resolver(conn, 1.0, 1.0)[0]["unidade_civica_id"] == uc
    # The hole's edge belongs to the polygon (boundary-inclusive).
    assert resolver(conn, 5.0, 4.0)[0]["unidade_civica_id"] == uc


def test_resolver__rounds_to_five_decimals(conn: Conn) -> None:
    uc = inserir_uc(conn, 4, "Canto", poligono(quadrado(0, 0, 1, 1)))
    # 1.000004 rounds to 1.0, on the edge: inside. 1.000006 rounds to 1.00001: outside.
    assert resolver(conn, 0.5, 1.000004)[0]["unidade_civica_id"] == uc
    assert resolver(conn, 0.5, 1.000006) == []


def test_resolver_territorios__set_based_matches_one_by_one(
    conn: Conn, territorio: Territorio
) -> None:
    points = [(-27.0, -49.0), (10.0, 10.0), (-27.0, -42.0), (-27.0, -45.0), (-15.0, -35.0)]
    rows = conn.execute(
        "SELECT * FROM d2.resolver_territorios(%s::float8[], %s::float8[]) ORDER BY ordem",
        [[p[0] for p in points], [p[1] for p in points]],
    ).fetchall()
    by_position = {r["ordem"]: r for r in rows}
    for i, (lat, lng) in enumerate(points, start=1):
        single = resolver(conn, lat, lng)
        if not single:
            assert i not in by_position
        else:
            got = by_position[i]
            assert (got["unidade_civica_id"], got["cadeia_ucs"]) == (
                single[0]["unidade_civica_id"],
                single[0]["cadeia_ucs"],
            )
