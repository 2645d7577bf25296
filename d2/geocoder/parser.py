"""The address parser: an address's text (question.Endereco) standardised with IPEA's
enderecobr, its CEP, S/N and dates taken out, cut into segments at separators, at the
complaint's clauses (d2.geocoder.complaint), at corners and reference phrases
(d2.geocoder.references), and each segment read into its field (d2.geocoder.fields): a
street, a house number alone, "Bairro X", a complement, a place. A preposition before a
street or a bairro ("na Rua X") is not its name; the prose around an address is not
either. Splitting is ours (enderecobr 0.3 standardises fields, it does not find them).

The work is bounded whatever the text: it is cut to question.LIMITE characters before
anything reads it, to MAX_SEGMENTOS segments of MAX_PALAVRAS words (d2.geocoder.fields),
every expression runs in linear time (no nested quantifiers, no back-references), and no
field sent to the geocoder is longer than MAX_PALAVRAS words.
"""

from __future__ import annotations

import re

import enderecobr

from d2.geocoder import complaint, fields, question, references
from d2.geocoder.fields import MAX_PALAVRAS, MAX_SEGMENTOS, Entendido
from d2.geocoder.vocabulary import COMPLEMENTOS, PREPOSICOES

_TRACOS = re.compile("[\u2010-\u2015\u2212]")
_CEP = re.compile(r"(?<![\d.])(\d{2})\.?(\d{3})[-.\s]?(\d{3})(?![\d.])")
_PALAVRA_CEP = re.compile(r"\bCEP\b\s*[:.]?")
# S/N, also written without its slash ("rua principal s n centro": no punctuation).
_SN = re.compile(r"\bS\s*/\s*N(?:O|\.)?(?![A-Z0-9])|\bS\.\s*N\b\.?|\bS\s+N\b|\bSEM\s+NUMERO\b")
# Field separators: punctuation, a dash between spaces, or glued before a final sigla
# ("Campo Grande-MS"); a dash inside a name ("Beira-Rio", "Xique-Xique") stays.
_SEPARADOR = re.compile(r"[,;|()\[\]{}<>\n/\\]|\s-+\s*|-+\s|(?<=[A-Z])-(?=[A-Z]{2}(?![A-Z0-9]))")
_NAO_PALAVRA = re.compile(r"[^A-Z0-9' .-]")
_BAIRRO = re.compile(r"(?:BAIRRO|BRO|B)\b\.?\s+(.+)")


def _palavras(segmento: str) -> list[str]:
    # Twice the field's bound: with no separator, the município ends the street's segment.
    palavras = _NAO_PALAVRA.sub(" ", segmento).split()[: 2 * MAX_PALAVRAS]
    return [p.strip(".-'") or p for p in palavras if p.strip(".-'")]


def _sem_preposicao(palavras: list[str]) -> list[str]:
    """A segment's words without the preposition before its street or bairro ("na Rua X"
    → RUA X, and "aqui na Rua X" of a long text); "NO 12" stays (enderecobr writes "nº"
    NO)."""
    if len(palavras) > 2 and palavras[0] == "AQUI" and palavras[1] in PREPOSICOES:
        palavras = palavras[1:]
    if len(palavras) > 1 and palavras[0] in PREPOSICOES:
        seguinte = palavras[1]
        if fields.tipo_de(seguinte) is not None or _BAIRRO.fullmatch(" ".join(palavras[1:])):
            return palavras[1:]
    return palavras


def _segmentos(bruto: str, e: Entendido) -> list[tuple[str, bool]]:
    """The text standardised, its CEP taken out, cut into segments at separators, at
    reference phrases and at the prose around them (complaint.trechos), each with whether it
    is tied to an anchor."""
    texto = enderecobr.normalizar(_TRACOS.sub("-", bruto))
    cep = _CEP.search(texto)
    if cep is not None:
        e.cep = e.cep or "".join(cep.groups())
        texto = _CEP.sub(" ", texto)
    texto = _SN.sub(" SN ", _PALAVRA_CEP.sub(" ", complaint.DATA.sub(" ", texto)))
    segmentos: list[tuple[str, bool]] = []
    partes = [(p, atado) for t, atado in complaint.trechos(texto) for p in _SEPARADOR.split(t)]
    for parte, atado in partes:
        parte = parte.strip(" .-'")
        if not parte:
            continue
        esquina = references.esquina(parte)
        if esquina is not None:
            cruzada, sigla = references.sem_sigla(esquina.cruzada)
            segmentos += [(p, atado) for p in (*esquina.lugares, sigla) if p]
            e.esquina = e.esquina or " ".join(cruzada[:MAX_PALAVRAS])
            parte = esquina.rua
        achada = references.REFERENCIA.search(parte)
        if achada is not None:
            referencia = references.referencia(parte[achada.end() :].strip())
            if referencia.numero is not None:
                e.numero = e.numero or referencia.numero
            if referencia.poi is not None:
                e.referencia = e.referencia or referencia.poi
            antes = parte[: achada.start()].strip()
            parte = " ".join(p for p in (antes, referencia.segmento or "") if p)
        if parte:
            segmentos.append((parte, atado))
        if len(segmentos) >= MAX_SEGMENTOS:
            break
    return segmentos


def entender(endereco: question.Endereco) -> Entendido:
    """The fields of an address (its payload's endereco, nomeRua and cep)."""
    e = Entendido()
    if endereco.cep:
        e.cep = endereco.cep.replace("-", "")
    rua_explicita = endereco.rua and _segmentos(endereco.rua, Entendido())
    segmentos = _segmentos(endereco.texto or "", e) if endereco.texto else []
    if rua_explicita:
        # nomeRua is the street: read first, the text's own street then only fills in
        # the number it may carry.
        resto = fields.ler_rua(e, _sem_preposicao(_palavras(rua_explicita[0][0])), com_tipo=True)
        fields.ler_lugar(e, resto)
    for n, (segmento, e._atado) in enumerate(segmentos):
        palavras = _sem_preposicao(_palavras(segmento))
        if not palavras:
            continue
        if e.numero is None and not e.sem_numero and fields.numero_sozinho(palavras):
            fields.ler_numero(e, palavras, 0)
            continue
        if palavras == ["SN"] or fields.numero_sozinho(palavras):
            continue
        bairro = _BAIRRO.fullmatch(" ".join(palavras))
        if bairro is not None and len(palavras) > 1:
            nome, onde = fields.bairro_e_lugar(bairro.group(1).split())
            e.bairro = e.bairro or fields.padronizado(enderecobr.padronizar_bairros, nome)
            if len(e.lugares) < MAX_SEGMENTOS:
                e.lugares_bairro.add(len(e.lugares))
            fields.ler_lugar(e, nome)
            fields.ler_lugar(e, onde)
            continue
        padrao = enderecobr.padronizar_complementos(" ".join(palavras)).split()
        if padrao and padrao[0] in COMPLEMENTOS:
            fields.ler_lugar(e, fields.segmento_de_complemento(e, padrao))
            continue
        seguinte = _sem_preposicao(_palavras(segmentos[n + 1][0] if n + 1 < len(segmentos) else ""))
        rua_na_prosa = e.logradouro is None and fields.tipo_de(palavras[0]) is None
        if rua_na_prosa and (corte := complaint.rua_depois(palavras)):
            fields.ler_lugar(e, palavras[: corte[0]])  # the prose before it, a place segment as any
            palavras = palavras[corte[1] :]
        de_rua = fields.tipo_de(palavras[0]) is not None and len(palavras) > 1
        sem_tipo = n == 0 and (
            any(fields.inicio_de_numero(palavras, i) for i in range(1, len(palavras)))
            or fields.numero_sozinho(seguinte)
        )
        if e.logradouro is None and (de_rua or sem_tipo):
            # "Rua X em Campo Grande": no street's name holds "em".
            rua, depois = fields.ate_em(palavras, 2) if de_rua else (palavras, [])
            fields.ler_lugar(
                e, fields.rua_do_segmento(e, rua, de_rua, fields.numero_sozinho(seguinte))
            )
            fields.ler_lugar(e, depois)
        elif rua_explicita and de_rua:
            # The text repeats the street nomeRua gave: only its number is new.
            for i in range(1, len(palavras)):
                if fields.inicio_de_numero(palavras, i):
                    fields.ler_numero(e, palavras, i)
                    break
        else:
            fields.ler_lugar(e, palavras)
    partes = (e.rua, e.numero, *e._no_texto, fields.cep_formatado(e.cep))
    e.texto = " ".join(p for p in partes if p)[: question.LIMITE]
    return e
