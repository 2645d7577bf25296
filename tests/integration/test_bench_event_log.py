"""The event-log benchmark measures what it says: its producers write a type D-2's
readers serve, so the fenced reader sees every committed event (a producer type outside
d2.eventos_tipos_lidos once made the gap run report every event as skipped)."""

from __future__ import annotations

from d2.bench import event_log


def test_gap_run__the_fenced_reader_gets_every_committed_event_once(db_url: str) -> None:
    feito = event_log.round_lacunas(db_url, transacoes=8, ingenuo=False)
    assert feito["events"] > 0
    assert feito["skipped"] == 0 and feito["duplicates"] == 0 and feito["out_of_order"] == 0


def test_long_transaction__delays_delivery_and_loses_nothing(db_url: str) -> None:
    feito = event_log.transacao_longa(db_url, segure_s=0.5, por_segundo=200)
    assert feito["events"] > 0 and feito["lost"] == 0
    assert feito["metric_max_held"] > 0  # the fence held events back while it was open
