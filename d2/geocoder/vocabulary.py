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

# The kinds of place a citizen names as the address itself ("Hospital Regional", "UBS
# Tiradentes", "Parque das Nações Indígenas"), as the first word of a place segment the
# territory does not hold. A list because neither enderecobr (no POI vocabulary) nor
# Nominatim (its special phrases come from the OSM wiki at import, not with it) gives
# one; kept small because each hit costs a search, and a segment that is only a bairro
# the territory lacks must not wait for Nominatim. Nominatim's class of the match then
# decides (ladder_rules: an amenity, a park..., never a place or a boundary).
POI_TIPOS = frozenset(
    "HOSPITAL UBS UPA CLINICA POLICLINICA POSTO ESCOLA COLEGIO CRECHE UNIVERSIDADE "
    "FACULDADE PARQUE IGREJA PAROQUIA CAPELA CATEDRAL SANTUARIO MERCADO SUPERMERCADO "
    "SHOPPING ESTADIO GINASIO CEMITERIO DELEGACIA BIBLIOTECA MUSEU TEATRO "
    # Acronyms that are kinds of place and how OSM names them ("EMEI Pequeno Príncipe"):
    # schools (municipal, infantil, técnica), family-health units, social assistance.
    "EMEI EMEF EMEB CMEI CEI CEINF ETEC UBSF USF PSF CRAS CREAS CAPS".split()
)
# POIs whose name alone says which one (one per município, as a rule): the name, or its
# first words ("Santa Casa de Misericórdia").
POI_NOMES = (("SANTA", "CASA"), ("RODOVIARIA",), ("AEROPORTO",), ("PREFEITURA",))
# The kinds of place citizens abbreviate ("Hosp. Regional", "E.E. Maria Constança",
# "Esc. Mun. Padre Tomaz"), dots read as spaces, with the words they stand for; Nominatim
# is asked the words. enderecobr expands "Sta." SANTA, "Pq." PARQUE, "Pça" PRACA (a
# street type), "N. Sra." NOSSA SENHORA and "Cond." CONDOMINIO (a complement: a
# condomínio is a landuse in OSM, no POI) before this is read, and has no POI
# vocabulary; no Python library of POI abbreviations was found (br-address-normalize
# expands street and bairro words; libpostal needs its C library and 2 GB model).
POI_ABREVIACOES = {
    ("HOSP",): "HOSPITAL", ("ESC",): "ESCOLA", ("EE",): "ESCOLA ESTADUAL",
    ("E", "E"): "ESCOLA ESTADUAL", ("E", "M"): "ESCOLA MUNICIPAL", ("COL",): "COLEGIO",
    ("FAC",): "FACULDADE", ("UNIV",): "UNIVERSIDADE", ("IGR",): "IGREJA",
    ("CLIN",): "CLINICA", ("POLICLIN",): "POLICLINICA", ("MERC",): "MERCADO",
    ("SUPERM",): "SUPERMERCADO", ("SUPERMERC",): "SUPERMERCADO", ("DELEG",): "DELEGACIA",
    ("CEMIT",): "CEMITERIO", ("BIBL",): "BIBLIOTECA", ("BIBLIOT",): "BIBLIOTECA",
    ("UNID", "BASICA"): "UNIDADE BASICA", ("UNIDADE", "BASICA"): "UNIDADE BASICA",
    ("PRONTO", "SOCORRO"): "PRONTO SOCORRO", ("PRONTO", "ATENDIMENTO"): "PRONTO ATENDIMENTO",
}  # fmt: skip
# What follows a kind abbreviated: "Esc. Est.", "Esc. Mun.", "Hosp. Univ.".
POI_QUALIFICADORES = {
    "EST": "ESTADUAL", "MUN": "MUNICIPAL", "MUNIC": "MUNICIPAL", "FED": "FEDERAL",
    "REG": "REGIONAL", "UNIV": "UNIVERSITARIO", "INF": "INFANTIL",
}  # fmt: skip
