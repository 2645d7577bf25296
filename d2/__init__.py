"""D-2 Georreferenciamento: which civic unit contains this demand, and which contain that one."""

from __future__ import annotations

__version__ = "0.1.0"
