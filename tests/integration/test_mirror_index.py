"""The resolver's index of pieces near borders (sql/tables/mirror_pieces.sql) stays as
its build leaves it: pages a tenth full, so a GIST search near a border tests ~17
entries a page instead of ~190. Inserts fill those pages; an apply that syncs a tenth of
the mirror or more since the last build, and every rebuild, build it again.
"""

from __future__ import annotations

import json
import math
from typing import Any

from d2.territorio import mirror
from tests.support import Conn
from tests.support.territorio import inserir_uc, poligono, quadrado

INDICE = "d2.mirror_pieces_geom_mun_sub_idx"


def _circulo(n: int) -> dict[str, Any]:
    """A polygon of n vertices: cut into about n / 64 pieces by the mirror."""
    anel = [
        (-45 + 2 * math.cos(2 * math.pi * k / n), -20 + 2 * math.sin(2 * math.pi * k / n))
        for k in range(n)
    ]
    return poligono([*anel, anel[0]])


def _indice(conn: Conn) -> dict[str, int]:
    row = conn.execute(
        """
        SELECT c.relfilenode AS arquivo, pg_relation_size(c.oid) / 8192 AS paginas,
               (SELECT count(*) FROM d2.mirror_pieces WHERE nivel <= 4) AS pedacos,
               (SELECT sincronizados_desde_indice FROM d2.mirror_state) AS sincronizados
        FROM pg_class c
        WHERE c.oid = %s::regclass
        """,
        [INDICE],
    ).fetchone()
    assert row is not None
    return {k: int(v) for k, v in row.items()}


def test_aplicar__an_import_leaves_the_index_pages_a_tenth_full(conn: Conn) -> None:
    inserir_uc(conn, 4, "Circular", _circulo(40_000), sincronizar=False)
    mirror.aplicar(conn)
    indice = _indice(conn)
    # Rows inserted one at a time pack ~190 boxes a page; built with fillfactor 10, ~17.
    assert indice["pedacos"] > 500
    assert indice["paginas"] * 25 >= indice["pedacos"], indice
    assert indice["sincronizados"] == 0


def test_aplicar__the_index_is_built_again_past_a_tenth_of_the_mirror(conn: Conn) -> None:
    ucs = [
        inserir_uc(conn, 4, f"M{i}", poligono(quadrado(i, 0, i + 1, 1)), sincronizar=False)
        for i in range(30)
    ]
    mirror.aplicar(conn)
    construido = _indice(conn)
    assert construido["sincronizados"] == 0

    def encolher(i: int) -> None:
        conn.execute(
            "UPDATE core.uc_polygons SET geometria = %s::jsonb WHERE unidade_civica_id = %s",
            [json.dumps(poligono(quadrado(i, 0.1, i + 1, 1))), ucs[i]],
        )

    encolher(0)
    mirror.aplicar(conn)
    um = _indice(conn)
    assert um["sincronizados"] == 1 and um["arquivo"] == construido["arquivo"]

    encolher(1)
    encolher(2)
    mirror.aplicar(conn)  # 3 of 30 since the last build: a tenth
    tres = _indice(conn)
    assert tres["sincronizados"] == 0 and tres["arquivo"] != construido["arquivo"]


def test_rebuild__leaves_the_index_pages_a_tenth_full(conn: Conn) -> None:
    inserir_uc(conn, 4, "Circular", _circulo(40_000))
    conn.execute("UPDATE d2.mirror_state SET sincronizados_desde_indice = 7")
    mirror.reconstruir(conn)
    indice = _indice(conn)
    assert indice["pedacos"] > 500
    assert indice["paginas"] * 25 >= indice["pedacos"], indice
    assert indice["sincronizados"] == 0
