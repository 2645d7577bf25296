"""The words of an address as enderecobr writes them once standardised (upper case, no
accents, abbreviations expanded), by what they are: street types, words that name an
area, complements, the prepositions before a street or a bairro, the words that join a
name's parts. d2.geocoder.parser and d2.geocoder.fields read a text by them;
d2.geocoder.places.interpretation reads an area word before a name as its type.
"""

from __future__ import annotations

import re

import enderecobr

# The street types, as enderecobr writes them after standardising ("R." → RUA): its own
# vocabulary (the targets of its tipo_logradouro substitutions), minus the words that
# name an area as often as a street and begin bairro or município names (Jardim, Vila,
# Parque, Campo Grande, Porto Sereno, Monte Castelo): a text starting with those is read
# as a place, not a street.
AREAS = frozenset(
    "ACAMPAMENTO AEROPORTO ALTO AREA BAIXA BLOCO BOSQUE BURACO CAMPO CHACARA COLONIA "
    "CONDOMINIO CONJUNTO DISTRITO FAVELA FAZENDA FEIRA FONTE FORTE GRANJA ILHA JARDIM "
    "LOTEAMENTO MODULO MONTE MORRO NUCLEO PARQUE PORTO QUADRA RECANTO RESIDENCIAL SETOR "
    "SITIO TERMINAL UNIDADE VALA VILA".split()
)


def _tipos_de_via() -> frozenset[str]:
    saidas = {s[1] for s in enderecobr.obter_padronizador_tipos_logradouros().obter_substituicoes()}
    return frozenset(s for s in saidas if re.fullmatch(r"[A-Z][A-Z-]+", s)) - AREAS


TIPOS = _tipos_de_via()

# A complement, as enderecobr's padronizar_complementos writes its first word; the
# words that take no value after them (fundos, térreo) stand alone.
COMPLEMENTOS = frozenset(
    "APARTAMENTO APTO BLOCO CASA LOJA LOJAS LOTE LOTES QUADRA SALA SALAS SL ANDAR "
    "COBERTURA EDIFICIO CONDOMINIO BOX GALPAO FUNDOS TERREO SOBRELOJA".split()
)
SEM_VALOR = frozenset({"FUNDOS", "TERREO", "SOBRELOJA", "COBERTURA"})
# The locative prepositions a citizen writes before a street or a bairro ("na Rua X",
# "no Bairro Y", "em Travessa Z"): not part of its name.
PREPOSICOES = frozenset({"EM", "NA", "NAS", "NO", "NOS"})
# Words that join a name's parts: a street's type after one is inside a name.
CONECTORES = frozenset({"DA", "DAS", "DE", "DO", "DOS", "E"})
