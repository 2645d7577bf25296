#!/usr/bin/env bash
# Lint, format and type checks (what a reviewer runs before the tests).
set -eu
cd "$(dirname "$0")/.."
.venv/bin/ruff check --no-cache .
.venv/bin/ruff format --no-cache --check .
.venv/bin/mypy
