"""The IBGE importer on the synthetic sample territory (runs everywhere)."""

from __future__ import annotations

import uuid

from d2.importers import ibge


def test_import__deterministic_ids() -> None:
    # The id any installation (or L-2) computes from the official code alone: uuid5 of
    # "ibge:4:1100015" in D-2's namespace, written out so a changed namespace or key shows.
    assert ibge.uc_id(4, "1100015") == uuid.UUID("56f86151-aa92-5d9b-a737-9cb1bd974389")
    assert ibge.uc_id(4, "1100015") != ibge.uc_id(2, "1100015")
    assert ibge.uc_id(4, "1100015") != ibge.uc_id(4, "1100015", fonte="osm")
