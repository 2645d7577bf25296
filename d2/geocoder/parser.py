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

from d2.geocoder import complaint, fields, labels, question, references
from d2.geocoder.fields import MAX_PALAVRAS, MAX_SEGMENTOS, Entendido
from d2.geocoder.places import gazetteer, lexicon
from d2.geocoder.vocabulary import COMPLEMENTOS, POI_ABREVIACOES, PREPOSICOES

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
# Where a sentence may end: a dot after a word, an exclamation or a question mark.
_PONTO = re.compile(r"([A-Z0-9]+)\.(?=\s|$)|[!?]+")
_PALAVRA = re.compile(r"\s*([A-Z]+)")


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


def _frases(texto: str) -> list[str]:
    """A text's sentences ("... falta água. Itaubal, Amapá."): cut at "!", "?" and at a
    dot after a number, a UF's sigla ("Natal/RN. A rua…") or a word that enderecobr does
    not read as an abbreviation ("Prof.", "Sta." stay inside their names) and that ends
    the sentence (_fim)."""
    frases, inicio = [], 0
    for ponto in _PONTO.finditer(texto):
        palavra = ponto.group(1)
        if palavra is not None and not _fim_de_frase(texto, ponto, palavra):
            continue
        frases.append(texto[inicio : ponto.start() if palavra is None else ponto.end() - 1])
        inicio = ponto.end()
    frases.append(texto[inicio:])
    return frases


def _fim_de_frase(texto: str, ponto: re.Match[str], palavra: str) -> bool:
    """Whether a dot after a word ends a sentence: after a number; never after one letter
    (an initial, "E.E.") nor an abbreviation enderecobr or the POIs' kinds know ("Av.",
    "Prof.", "Hosp."); after a word of four letters or more; after a shorter one or a UF's
    sigla ("Sul.", "PB.", "Com."), when what follows is no name but a common word ("Rio
    Grande do Sul. No bairro…", "Boa Vista - PB. Bairro…", not "Com. Araújo")."""
    if palavra.isdigit():
        return True
    abreviatura = (palavra,) in POI_ABREVIACOES or (
        enderecobr.padronizar_logradouros(palavra) != palavra
    )
    if len(palavra) == 1 or (abreviatura and not gazetteer.sigla_de_uf(palavra)):
        return False
    if len(palavra) > 3 and not gazetteer.sigla_de_uf(palavra):
        return True
    seguinte = _PALAVRA.match(texto, ponto.end())
    return seguinte is None or lexicon.frequencia(seguinte.group(1)) >= 5.0


def _segmentos(bruto: str, e: Entendido) -> list[tuple[str, complaint.Trecho, str | None]]:
    """The text standardised, its CEP taken out, cut at its labels (d2.geocoder.labels),
    its sentences, separators, reference phrases and the prose around them
    (complaint.trechos): each segment with whether it is tied to an anchor, and what its
    label says it is (None: no label)."""
    texto = enderecobr.normalizar(_TRACOS.sub("-", bruto))
    cep = _CEP.search(texto)
    if cep is not None:
        e.cep = e.cep or "".join(cep.groups())
        texto = _CEP.sub(" ", texto)
    texto = _SN.sub(" SN ", complaint.DATA.sub(" ", texto))
    segmentos: list[tuple[str, complaint.Trecho, str | None]] = []
    partes = [
        (p, trecho, campo.papel)
        for campo in labels.campos(texto)
        if campo.papel != labels.FORA
        for frase in _frases(_PALAVRA_CEP.sub(" ", campo.valor))
        for trecho in complaint.trechos(frase)
        for p in _SEPARADOR.split(trecho.texto)
    ]
    for parte, trecho, papel in partes:
        parte = parte.strip(" .-'")
        if not parte:
            continue
        esquina = references.esquina(parte)
        if esquina is not None:
            cruzada, sigla = references.sem_sigla(esquina.cruzada)
            segmentos += [(p, trecho, papel) for p in (*esquina.lugares, sigla) if p]
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
            rua = fields.rua_com_ordinal(referencia.segmento.split()) if referencia.segmento else []
            if antes and rua and fields.tipo_de(rua[0]) is not None:
                # "… ao lado do número 1730 da 1ª Travessa São Vicente": that street, apart
                # from the prose before it.
                segmentos.append((antes, trecho, papel))
                antes = ""
            parte = " ".join(p for p in (antes, referencia.segmento or "") if p)
        if parte:
            segmentos.append((parte, trecho, papel))
        if len(segmentos) >= MAX_SEGMENTOS:
            break
    return segmentos


def _rotulado(e: Entendido, palavras: list[str], rotulo: str | None) -> bool:
    """A labelled value read as its label says (d2.geocoder.labels); False where the label
    says nothing more than any text would."""
    if rotulo in (labels.CIDADE, labels.UF):
        fields.ler_lugar(e, palavras, papel=e.lugares_cidade)
    elif rotulo == labels.BAIRRO:
        if palavras != ["CENTRO"] or not e.bairro:
            e.bairro = e.bairro or fields.padronizado(enderecobr.padronizar_bairros, palavras)
        if len(e.lugares) < MAX_SEGMENTOS:
            e.lugares_bairro.add(len(e.lugares))
        fields.ler_lugar(e, palavras)
    elif rotulo == labels.NUMERO:
        if e.numero is None and fields.inicio_de_numero(palavras, 0):
            fields.ler_numero(e, palavras, 0)
    elif rotulo == labels.REFERENCIA:
        e.referencia = e.referencia or " ".join(palavras[:MAX_PALAVRAS])
    elif rotulo != labels.COMPLEMENTO:
        return False
    return True


def _rua_ou_lugar(
    e: Entendido, palavras: list[str], primeiro: bool, proximo: str, rua_explicita: bool
) -> None:
    """A segment with no label that is no number, bairro or complement: the street (with
    a type, or the first segment with a number: "Av. X 10", "Principal 10"; a street
    after prose: "buraco na Rua X"), or a place segment."""
    seguinte = _sem_preposicao(_palavras(proximo))
    rua_na_prosa = e.logradouro is None and fields.tipo_de(palavras[0]) is None
    if rua_na_prosa and (corte := complaint.rua_depois(palavras)):
        fields.ler_lugar(e, palavras[: corte[0]])  # the prose before it, a place segment as any
        palavras = fields.rua_com_ordinal(palavras[corte[1] :])
    de_rua = fields.tipo_de(palavras[0]) is not None and len(palavras) > 1
    sem_tipo = primeiro and (
        any(fields.inicio_de_numero(palavras, i) for i in range(1, len(palavras)))
        or fields.numero_sozinho(seguinte)
    )
    if e.logradouro is None and (de_rua or sem_tipo):
        # "Rua X em Campo Grande": no street's name holds "em".
        rua, depois = fields.ate_em(palavras, 2) if de_rua else (palavras, [])
        if any(fields.inicio_de_numero(depois, i) for i in range(len(depois))):
            rua, depois = palavras, []  # "Rua Fé em Deus 226": the street's own "em"
        fields.ler_lugar(
            e,
            fields.rua_do_segmento(e, rua, de_rua, fields.numero_sozinho(seguinte)),
            papel=e.lugares_cauda,
        )
        fields.ler_lugar(e, depois, papel=e.lugares_em)
    elif rua_explicita and de_rua:
        # The text repeats the street nomeRua gave: only its number is new.
        for i in range(1, len(palavras)):
            if fields.inicio_de_numero(palavras, i):
                fields.ler_numero(e, palavras, i)
                break
    else:
        fields.ler_lugar(e, palavras)


def entender(endereco: question.Endereco) -> Entendido:
    """The fields of an address (its payload's endereco, nomeRua and cep)."""
    e = Entendido()
    if endereco.cep:
        e.cep = endereco.cep.replace("-", "")
    rua_explicita = endereco.rua and _segmentos(endereco.rua, Entendido())
    segmentos = _segmentos(endereco.texto or "", e) if endereco.texto else []
    if not rua_explicita:
        rua_explicita = [s for s in segmentos if s[2] == labels.RUA][:1]
        segmentos = [s for s in segmentos if s[2] != labels.RUA]
    if rua_explicita:
        # nomeRua (or a form's "Logradouro:") is the street: read first, the text's own
        # street then only fills in the number it may carry.
        palavras = _sem_preposicao(_palavras(rua_explicita[0][0]))
        resto = fields.ler_rua(e, palavras, com_tipo=True)
        fields.ler_lugar(e, resto, papel=e.lugares_cauda)
    for n, (segmento, trecho, rotulo) in enumerate(segmentos):
        e._atado, e._falado = trecho.atado, trecho.falado
        palavras = fields.rua_com_ordinal(_sem_preposicao(_palavras(segmento)))
        if not palavras or _rotulado(e, palavras, rotulo):
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
            fields.ler_lugar(e, onde, papel=e.lugares_em)
            continue
        padrao = enderecobr.padronizar_complementos(" ".join(palavras)).split()
        if padrao and padrao[0] in COMPLEMENTOS and fields.complemento_escrito(palavras, padrao):
            resto = fields.segmento_de_complemento(e, padrao)
            # What follows a complement read ("quadra 12 689 joao paulo ii juazeiro") closes
            # the address, as after a street's number.
            papel = e.lugares_cauda if len(resto) < len(padrao) else None
            fields.ler_lugar(e, resto, papel=papel)
            continue
        seguinte = segmentos[n + 1][0] if n + 1 < len(segmentos) else ""
        _rua_ou_lugar(e, palavras, n == 0, seguinte, bool(rua_explicita))
    partes = (e.rua, e.numero, *e._no_texto, fields.cep_formatado(e.cep))
    e.texto = " ".join(p for p in partes if p)[: question.LIMITE]
    return e
