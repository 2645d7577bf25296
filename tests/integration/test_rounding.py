"""The Python cache key and the SQL resolver round coordinates identically."""

from __future__ import annotations

from typing import Any

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d2.territorio import resolver

coordenadas = st.one_of(
    st.floats(min_value=-180, max_value=180, allow_nan=False),
    # Values right on a rounding edge: x.xxxxx5 and neighbours.
    st.integers(min_value=-18_000_000, max_value=18_000_000).map(lambda n: n / 100_000 + 0.000005),
    st.integers(min_value=-18_000_000, max_value=18_000_000).map(lambda n: n / 100_000 - 0.000005),
)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(coordenadas, min_size=1, max_size=50))
def test_python_rounding_equals_sql_rounding(
    conn: psycopg.Connection[dict[str, Any]], valores: list[float]
) -> None:
    rows = conn.execute(
        "SELECT d2.arredondar_coordenada(v) AS r FROM unnest(%s::float8[]) WITH ORDINALITY "
        "AS t (v, i) ORDER BY i",
        [valores],
    ).fetchall()
    assert [r["r"] for r in rows] == [resolver.arredondar(v) for v in valores]
