#!/usr/bin/env bash
# The main job on the embedded default: sets up, starts the private PostGIS under ./.d2/,
# loads the synthetic sample territory, feeds sample demands (good and bad) through the
# worker and prints where each ended.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
unset DATABASE_URL
.venv/bin/d2 db start
.venv/bin/d2 demo "$@"
