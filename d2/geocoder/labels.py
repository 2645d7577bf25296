"""A form's labels: "Cidade: Natal", "Bairro: Centro", "Endereço: Rua X, 10", written one
per line, one per sentence, between pipes or all in one line. A label is never a value
("Logradouro:" is no place, though Logradouro is a município of PB): it says what its
value is — the street, the house number, the bairro, the city, the UF, the CEP, a
reference — or that its value is no address at all (a name, a phone number). A label
this module does not know (up to four words before a colon: "Reclamação:", "Tipo de
serviço:") is dropped and its value read as any text.

Labels are read in a text enderecobr standardised (upper case, no accents); "o endereço
é …" is written the way a label is. No library lists the labels of Brazilian forms; these
are the fields of the address itself (as enderecobr names them) and the ones forms put
around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# What a label says of its value.
RUA, NUMERO, COMPLEMENTO, BAIRRO, CIDADE, UF, CEP, REFERENCIA, ENDERECO, FORA, OUTRO = (
    "rua", "numero", "complemento", "bairro", "cidade", "uf", "cep", "referencia",
    "endereco", "fora", "outro",
)  # fmt: skip
_PAPEIS = {
    "ENDERECO": ENDERECO, "ENDERECO DA OCORRENCIA": ENDERECO, "ENDERECO DO PROBLEMA": ENDERECO,
    "LOCAL": ENDERECO, "LOCAL DA OCORRENCIA": ENDERECO, "LOCAL DO PROBLEMA": ENDERECO,
    "ONDE": ENDERECO,
    "LOGRADOURO": RUA, "RUA": RUA, "AVENIDA": RUA,
    "NUMERO": NUMERO, "NO": NUMERO, "N": NUMERO, "NRO": NUMERO, "NUM": NUMERO,
    "COMPLEMENTO": COMPLEMENTO,
    "BAIRRO": BAIRRO, "DISTRITO": BAIRRO, "POVOADO": BAIRRO, "COMUNIDADE": BAIRRO,
    "CIDADE": CIDADE, "MUNICIPIO": CIDADE, "LOCALIDADE": CIDADE, "CIDADE UF": CIDADE,
    "CIDADE ESTADO": CIDADE, "MUNICIPIO UF": CIDADE,
    "UF": UF, "ESTADO": UF,
    "CEP": CEP,
    "REFERENCIA": REFERENCIA, "PONTO DE REFERENCIA": REFERENCIA,
    # Values that are no address: people, contacts, dates, file numbers.
    "NOME": FORA, "NOME COMPLETO": FORA, "CPF": FORA, "RG": FORA, "TELEFONE": FORA,
    "TEL": FORA, "CELULAR": FORA, "WHATSAPP": FORA, "EMAIL": FORA, "E-MAIL": FORA,
    "DATA": FORA, "HORA": FORA, "HORARIO": FORA, "PROTOCOLO": FORA, "DESTINATARIO": FORA,
    "REMETENTE": FORA, "SOLICITANTE": FORA, "ASSINADO": FORA, "ASSINATURA": FORA,
    "A C": FORA, "AC": FORA,
}  # fmt: skip
# Up to four words and a colon; a time ("10:30") is no label. "O endereço é" is one.
_ROTULO = re.compile(
    r"(?:(?<=^)|(?<=[^A-Z0-9]))(?P<rotulo>[A-Z]+(?:[ /-]+[A-Z]+){0,3})\s*:(?!\d)"
    r"|\b(?:O\s+|MEU\s+|NOSSO\s+)?ENDERECO\s+(?:E|EH|FICA|SERIA)\b"
)
# Where a run of label words may start: a line, a sentence, a field's end.
_QUEBRA = re.compile(r"[\n|;.,]\s*$")


@dataclass(frozen=True)
class Campo:
    papel: str | None  # None: text before any label
    valor: str


def _papel(palavras: list[str]) -> tuple[str, int] | None:
    """The role of the label whose words end palavras (the longest known suffix), and how
    many words it takes; None where no suffix is a known label."""
    for n in range(min(4, len(palavras)), 0, -1):
        papel = _PAPEIS.get(" ".join(palavras[-n:]))
        if papel is not None:
            return papel, n
    return None


def campos(texto: str) -> list[Campo]:
    """A standardised text cut at its labels: each value with what its label says (the
    text before the first label has none). One scan, bounded by the text's length."""
    saida: list[Campo] = []
    inicio_valor, papel = 0, None
    for achado in _ROTULO.finditer(texto):
        if achado["rotulo"] is None:  # "o endereço é"
            inicio_rotulo, novo = achado.start(), ENDERECO
        else:
            palavras = re.split(r"[ /-]+", achado["rotulo"])
            conhecido = _papel(palavras)
            if conhecido is not None:
                novo, n = conhecido
                inicio_rotulo = _inicio_das_palavras(texto, achado.start("rotulo"), palavras, n)
            elif _QUEBRA.search(texto, 0, achado.start()) or achado.start() == 0:
                novo, inicio_rotulo = OUTRO, achado.start()
            else:
                continue  # a colon in prose
        if inicio_rotulo < inicio_valor:
            continue
        saida.append(Campo(papel, texto[inicio_valor:inicio_rotulo]))
        inicio_valor, papel = achado.end(), novo
    saida.append(Campo(papel, texto[inicio_valor:]))
    return [c for c in saida if c.valor.strip(" .,;|-")]


def _inicio_das_palavras(texto: str, inicio: int, palavras: list[str], n: int) -> int:
    """Where the last n of a label's words start in the text."""
    pular = len(palavras) - n
    i = inicio
    for _ in range(pular):
        achado = re.compile(r"[ /-]+").search(texto, i)
        if achado is None:
            break
        i = achado.end()
    return i


def rotulado(texto: str) -> bool:
    """Whether a text (standardised or not) is written with an address's labels."""
    return any(c.papel not in (None, OUTRO, FORA) for c in campos(texto.upper()))
