#!/usr/bin/env bash
# For operators: download the Brazil extract of OpenStreetMap (Geofabrik) for
# `d2 nominatim import`. Prints its size and what the import will take. Never run by tests.
#   scripts/nominatim/download.sh [DIR]       (default: ./.d2/osm)
set -eu
URL="${NOMINATIM_PBF_URL:-https://download.geofabrik.de/south-america/brazil-latest.osm.pbf}"
DIR="${1:-.d2/osm}"
mkdir -p "$DIR"
ARQUIVO="$DIR/$(basename "$URL")"
TAMANHO=$(curl -sIL "$URL" | awk 'tolower($1)=="content-length:" {n=$2} END {print n+0}')
if [ "$TAMANHO" -gt 0 ]; then
    echo "baixar: $URL is $((TAMANHO / 1024 / 1024)) MB" >&2
fi
# Rough figures from Nominatim's documentation for a country of this size (address style,
# 4 threads, SSD): the database takes about 10-15x the .pbf on disk, the import hours.
echo "baixar: expect ~$((TAMANHO * 12 / 1024 / 1024 / 1024 + 1)) GB of disk for the Nominatim database" >&2
echo "baixar: and roughly 3-8 hours of import on 4 cores with 16 GB of RAM (SSD)" >&2
curl -fL --retry 3 -C - -o "$ARQUIVO" "$URL"
echo "baixar: saved $ARQUIVO; now: .venv/bin/d2 nominatim import $ARQUIVO" >&2
