#!/bin/sh
# Downloads the official IBGE meshes that `d2 import-ibge` reads, and unpacks them.
set -eu

BASE="https://geoftp.ibge.gov.br/organizacao_do_territorio/malhas_territoriais"
MALHA="$BASE/malhas_municipais/municipio_2025/Brasil"
BAIRROS="$BASE/malhas_de_setores_censitarios__divisoes_intramunicipais/censo_2022/bairros/shp/BR"
DESTINO="$(cd "$(dirname "$0")" && pwd)/data"

uso() {
    cat <<TEXTO
usage: scripts/ibge/download.sh [--help]

Downloads the IBGE files for 'd2 import-ibge' into scripts/ibge/data/ (git-ignored),
unpacks each .zip there, and skips every file that is already present.

From $MALHA/:
  BR_Pais_2025.zip          país (nível 7)              ~ 6 MB
  BR_Regioes_2025.zip       5 regiões (nível 6)         ~ 15 MB
  BR_UF_2025.zip            27 UFs (nível 5)            ~ 25 MB
  BR_Municipios_2025.zip    5,570 municípios (nível 4)  ~ 120 MB (~ 240 MB unpacked)
From $BAIRROS/:
  BR_bairros_CD2022.zip     bairros, Censo 2022 (nível 2) ~ 120 MB

Sizes are approximate; about 300 MB to download, 600 MB unpacked. Needs curl (or wget)
and unzip. Then: d2 import-ibge scripts/ibge/data
TEXTO
}

case "${1:-}" in
    -h | --help) uso; exit 0 ;;
    "") ;;
    *) uso >&2; exit 2 ;;
esac

baixar() { # URL FILE
    if command -v curl >/dev/null 2>&1; then
        curl --fail --location --retry 3 --output "$2" "$1"
    else
        wget --tries=3 --output-document="$2" "$1"
    fi
}

mkdir -p "$DESTINO"
for url in \
    "$MALHA/BR_Pais_2025.zip" \
    "$MALHA/BR_Regioes_2025.zip" \
    "$MALHA/BR_UF_2025.zip" \
    "$MALHA/BR_Municipios_2025.zip" \
    "$BAIRROS/BR_bairros_CD2022.zip"; do
    arquivo="$DESTINO/$(basename "$url")"
    if [ -s "$arquivo" ]; then
        echo "already here: $(basename "$arquivo")"
    else
        echo "downloading $url"
        # a partial download must not look complete on the next run
        baixar "$url" "$arquivo.parcial"
        mv "$arquivo.parcial" "$arquivo"
    fi
    shp="${arquivo%.zip}.shp"
    if [ ! -s "$shp" ]; then
        unzip -o -q -j "$arquivo" -d "$DESTINO"
    fi
done
echo "IBGE files in $DESTINO"
