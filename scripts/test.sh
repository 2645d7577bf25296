#!/usr/bin/env bash
# Runs the whole test suite against a real, throw-away PostgreSQL + PostGIS.
# Extra arguments go to pytest (e.g. scripts/test.sh -k resolver).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/pytest "$@"
