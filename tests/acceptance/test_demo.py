"""The README's first command runs `d2 demo`: the sample territory, demands through the
worker, citizens' drawings through consensus and the automatic re-georeferencing. It
plays the upstream colonies (D-1b, L-1) the way they publish: plain INSERTs into the
event log, since D-2's own publisher only takes D-2's output types."""

from __future__ import annotations

from d2.cli import demo
from tests.support import Conn


def test_demo__runs_end_to_end_and_every_event_ends_somewhere(db_url: str, conn: Conn) -> None:
    report = demo.executar(db_url, 60, enderecos=False)
    assert report["territorio"] > 0
    # The sample's CEPs (d2 cep import): linked by name, two districts, one UF missing.
    assert report["ceps"]["municipios"] == {
        "nome": 17, "distrito_faixa": 1, "distrito_nome": 1, "uf_ausente": 1}  # fmt: skip
    assert report["lag"] == 0
    assert report["desfechos"].get("georreferenciada", 0) > 0
    decisoes = {d["decisao"] for d in report["desenhos"]}
    assert decisoes == {"nova", "confirmacao", "alternativa", "retida"}
    publicados = conn.execute(
        "SELECT count(*) AS n FROM core.event_log WHERE tipo = 'demanda.georreferenciada'"
    ).fetchone()
    assert publicados is not None and publicados["n"] >= report["desfechos"]["georreferenciada"]
    assert "D-2 demo" in demo.formatar(report)
