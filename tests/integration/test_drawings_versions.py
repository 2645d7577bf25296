"""A new version of an existing community unit is a claim, judged by what it takes.

On the sample territory (Campo Largo, a município without bairros), a citizen drew one
small micro-área, which became a unit without a moderator. Two more drawings of the same
unit then moved its shape over stored answers the attacker chose, in one drain: a
rectangle twice the first (two alternatives awaiting a moderator outvoted the first
drawing), a MultiPolygon with a small part 17 km away (the whole overlapped the first
drawing enough to "confirm" it), two confirmations stretched over answers next to it
(never shown to a moderator). Every moved answer was republished.

Now a version awaiting a moderator takes no part in choosing the shape, and a version
(or the consensus moving to one) is judged by what it takes — the new shape minus the
current one — as a new unit is, part by part: held for a moderator past any bound."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from d2 import config
from d2.importers import sample
from d2.territorio import comunitario
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, submeter_drawing
from tests.support.territorio import multipoligono, poligono, quadrado, sincronizar_mirror

# Campo Largo (sample territory): no bairro, so a micro-área hangs from the município.
X0, Y0 = -54.0, -10.0
LADO = 0.005  # the first drawing: ~0.3 km²
PRIMEIRO = quadrado(X0, Y0, X0 + LADO, Y0 + LADO)

# Each attack: the two drawings, where the attacker's chosen answers lie, and how many.
# A rectangle (almost) twice the first: intersection over union 0.53, an alternative.
RETANGULO = quadrado(X0, Y0, X0 + 1.9 * LADO, Y0 + LADO)
# The first drawing plus a square of 0.002° ~17 km east: overlap 0.86, a confirmation.
LONGE = quadrado(X0 + 0.155, Y0, X0 + 0.157, Y0 + 0.002)
# The first drawing stretched by a fifth: overlap 0.83, a confirmation.
ESTICADO = quadrado(X0, Y0, X0 + 1.2 * LADO, Y0 + LADO)
ATAQUES: dict[str, tuple[dict[str, Any], tuple[float, float, float, float], int]] = {
    "rectangle": (poligono(RETANGULO), (X0 + LADO, Y0, X0 + 1.9 * LADO, Y0 + LADO), 300),
    "far_part": (
        multipoligono([PRIMEIRO], [LONGE]),
        (X0 + 0.155, Y0, X0 + 0.157, Y0 + 0.002),
        200,
    ),
    "confirmations": (poligono(ESTICADO), (X0 + LADO, Y0, X0 + 1.2 * LADO, Y0 + LADO), 100),
}


def _respostas(conn: Conn, db_url: str, caixa: tuple[float, float, float, float], n: int) -> None:
    """n stored answers spread over a box (inside, off its edges), resolved by the worker."""
    x0, y0, x1, y1 = caixa
    lado = int(n**0.5) + 1
    with conn.transaction():
        for k in range(n):
            i, j = divmod(k, lado)
            lng = x0 + (x1 - x0) * (i + 0.5) / lado
            lat = y0 + (y1 - y0) * (j + 0.5) / lado
            inserir_evento(conn, payload_normalizada(round(lat, 6), round(lng, 6)))
    drenar(db_url)


def _na_uc(conn: Conn, uc: uuid.UUID) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM d2.resolucoes_geo WHERE unidade_civica_id = %s", [uc]
    ).fetchone()
    assert row is not None
    return int(row["n"])


def _linha(conn: Conn, event_id: uuid.UUID) -> dict[str, Any]:
    row = conn.execute(
        "SELECT * FROM d2.territorio_submissoes WHERE event_id = %s", [event_id]
    ).fetchone()
    assert row is not None
    return row


def _seguir(conn: Conn, db_url: str, settings: config.Settings) -> None:
    """What the worker's stages do: consume the drawings, apply the mirror, follow up."""
    comunitario.drenar(conn, settings)
    sincronizar_mirror(conn)
    drenar(db_url)


@pytest.fixture
def micro_area(conn: Conn, db_url: str, settings: config.Settings) -> uuid.UUID:
    """The sample territory, and one small micro-área made a unit without a moderator."""
    sample.load_sample(db_url)
    semear_cursor(conn)
    primeiro = submeter_drawing(conn, poligono(PRIMEIRO), nivel=1, nome="Vila do Teste")
    _seguir(conn, db_url, settings)
    s = _linha(conn, primeiro)
    assert (s["decisao"], s["moderacao"]) == ("nova", None)
    return uuid.UUID(str(s["alvo_uc_id"]))


@pytest.mark.parametrize("ataque", list(ATAQUES))
def test_versions__two_drawings_of_a_unit_cannot_move_it_over_chosen_answers(
    conn: Conn, db_url: str, settings: config.Settings, micro_area: uuid.UUID, ataque: str
) -> None:
    forma, caixa, n = ATAQUES[ataque]
    _respostas(conn, db_url, caixa, n)
    assert _na_uc(conn, micro_area) == 0
    eventos = [submeter_drawing(conn, forma, nivel=1, nome="Vila do Teste") for _ in range(2)]
    _seguir(conn, db_url, settings)

    movidas = _na_uc(conn, micro_area)
    print(f"{ataque}: {movidas}/{n} chosen answers moved to the unit")
    assert movidas == 0
    # Both wait where a moderator looks, with the reason.
    pendentes = {r["submissao_id"]: r for r in comunitario.listar(conn)}
    for evento in eventos:
        s = _linha(conn, evento)
        assert s["alvo_uc_id"] == micro_area and s["moderacao"] == "pendente", s
        assert s["id"] in pendentes and s["motivo"], s

    # The legitimate path: a moderator accepts one, and the answers follow the unit.
    comunitario.moderar(conn, _linha(conn, eventos[0])["id"], "aceitar", "moderadora")
    sincronizar_mirror(conn)
    drenar(db_url)
    assert _na_uc(conn, micro_area) == n


def test_versions__honest_confirmations_still_move_the_shape_unattended(
    conn: Conn, db_url: str, settings: config.Settings, micro_area: uuid.UUID
) -> None:
    """Two confirmations that take no stored answer and little area are not held: the
    consensus moves to them as before, with no moderator."""
    ajustado = poligono(quadrado(X0 + 0.0002, Y0, X0 + LADO + 0.0002, Y0 + LADO))
    eventos = [submeter_drawing(conn, ajustado, nivel=1, nome="Vila do Teste") for _ in range(2)]
    _seguir(conn, db_url, settings)
    decisoes = [(_linha(conn, e)["decisao"], _linha(conn, e)["moderacao"]) for e in eventos]
    assert decisoes == [("confirmacao", None)] * 2
    canonica = conn.execute(
        "SELECT submissao_canonica FROM d2.territorio_ucs WHERE unidade_civica_id = %s",
        [micro_area],
    ).fetchone()
    assert canonica is not None
    assert canonica["submissao_canonica"] in {_linha(conn, e)["id"] for e in eventos}


def test_versions__the_consensus_moving_to_an_earlier_version_is_judged_by_what_it_takes(
    conn: Conn, db_url: str, settings: config.Settings, micro_area: uuid.UUID
) -> None:
    """A confirmation V1 stretched east over 40 answers is in play (within every bound
    then) but does not win. The owner then lowers what one change may take to 30, and a
    second confirmation V2, taking nothing itself, would make V1 the shape: that move
    takes V1's 40 answers, and is held."""
    leste = (X0 + LADO, Y0, X0 + 1.2 * LADO, Y0 + LADO)
    _respostas(conn, db_url, (X0 + 1.1 * LADO, Y0, X0 + 1.2 * LADO, Y0 + LADO), 40)
    v1 = submeter_drawing(conn, poligono(quadrado(X0, Y0, *leste[2:])), nivel=1, nome="V")
    _seguir(conn, db_url, settings)
    assert (_linha(conn, v1)["decisao"], _linha(conn, v1)["moderacao"]) == (
        "confirmacao",
        None,
    )
    assert _na_uc(conn, micro_area) == 0  # a tie with the first drawing keeps it
    conn.execute("UPDATE d2.territorio_limites SET max_resolucoes_tomadas = 30 WHERE nivel = 1")
    # The first drawing less a corner, plus the western half of V1's strip (no answer).
    sem_canto = [
        (X0 + 0.0005, Y0), (X0 + 1.1 * LADO, Y0), (X0 + 1.1 * LADO, Y0 + LADO),
        (X0, Y0 + LADO), (X0, Y0 + 0.0005), (X0 + 0.0005, Y0),
    ]  # fmt: skip
    v2 = submeter_drawing(conn, poligono(sem_canto), nivel=1, nome="V")
    _seguir(conn, db_url, settings)
    movidas = _na_uc(conn, micro_area)
    print(f"consensus move: {movidas}/40 answers moved")
    assert movidas == 0
    s = _linha(conn, v2)
    assert (s["decisao"], s["moderacao"]) == ("confirmacao", "pendente")
    assert "40" in s["motivo"]
