"""Structured logs: one JSON object per line on stderr (spec 8.1).

Fields passed with `extra=` (demanda_id, event_id, correlacao_id, unidade_civica_id, ...)
become top-level keys. GPS coordinates and addresses are never logged, not even on the
spec's "Coordenadas inválidas" line (which names the field and the rule): a citizen's
position is personal data (LGPD), and the event_id leads to it for whoever may read the
event. Characters a terminal would act on (C1 controls, bidi overrides) are escaped in
the JSON like the C0 ones json.dumps escapes itself.
"""

from __future__ import annotations

import json
import logging
import sys
import uuid
from datetime import UTC, datetime
from typing import Any

from d2.terminal import json_seguro

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def _jsonable(value: Any) -> Any:
    if isinstance(value, uuid.UUID | datetime):
        return str(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = _jsonable(value)
        if record.exc_info and record.exc_info[1] is not None:
            entry["erro"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return json_seguro(json.dumps(entry, ensure_ascii=False, default=str))


def configure(level: str = "INFO") -> None:
    """Send d2's logs, as JSON lines, to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("d2")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
