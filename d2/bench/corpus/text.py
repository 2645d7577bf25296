"""How citizens write addresses, for the address corpus (d2/bench/address_corpus.py): the
types and titles they abbreviate, the typos they make, the narratives around an address,
the texts that name nothing; and how the corpus compares names (case and accents folded).
"""

from __future__ import annotations

import random
import re
import unicodedata

TIPOS = ("Rua", "Avenida", "Travessa", "Alameda", "Praça")
_ABREVIA_TIPO = {
    "Rua": ("R.", "R", "r."),
    "Avenida": ("Av.", "Av", "AV.", "Avn."),
    "Travessa": ("Trav.", "Tv.", "TV"),
    "Alameda": ("Al.", "AL"),
    "Praça": ("Pç.", "Pça", "Praca"),
}
_ABREVIA_TITULO = {
    "Doutor": "Dr.", "Doutora": "Dra.", "Coronel": "Cel.", "General": "Gen.",
    "Presidente": "Pres.", "Professor": "Prof.", "Professora": "Profa.", "Senador": "Sen.",
    "Deputado": "Dep.", "Marechal": "Mal.", "Engenheiro": "Eng.", "Padre": "Pe.",
    "Capitão": "Cap.", "Tenente": "Ten.", "Major": "Maj.", "Governador": "Gov.",
    "Vereador": "Ver.", "Desembargador": "Des.", "Monsenhor": "Mons.", "Santa": "Sta.",
    "Santo": "Sto.", "Almirante": "Alm.", "Brigadeiro": "Brig.", "Sargento": "Sgt.",
    "Comendador": "Com.", "Dom": "D.", "Nossa Senhora": "N. Sra.", "São": "S.",
}  # fmt: skip
_ABREVIA_BAIRRO = {"Jardim": "Jd.", "Vila": "Vl.", "Parque": "Pq.", "Conjunto": "Conj."}
_NARRATIVA = (
    "Há um buraco enorme no asfalto que aumenta a cada chuva.",
    "Os moradores já reclamaram várias vezes e até agora nada foi feito.",
    "À noite a iluminação não funciona e fica perigoso passar por ali.",
    "Carros desviam pela contramão para não cair no buraco.",
    "Uma senhora caiu na semana passada e machucou o joelho.",
    "O lixo acumula na calçada e atrai ratos e baratas.",
    "A água da chuva empoça e entra nas casas mais baixas.",
    "Peço que a prefeitura mande uma equipe para avaliar o problema.",
    "Já abri outro protocolo pelo telefone mas ninguém retornou.",
    "As crianças passam por ali todos os dias a caminho da escola.",
    "O mato está alto e esconde o buraco de quem vem de bicicleta.",
    "Tenho fotos e posso enviar se for preciso.",
)
SEM_SENTIDO = (
    "asdfgh jkl", "qwpoeiru zxmcnv asdkjh", "???", "...", "aqui", "na minha rua",
    "perto de casa", "não sei o endereço", "kkkkkkkk", "teste teste", "rua", "xxxx yyyy zzzz",
    "lá perto do posto", "1234", "sem endereço",
)  # fmt: skip


def dobrar(texto: str) -> str:
    """Case and accents folded, spaces collapsed: how names are compared here."""
    sem = unicodedata.normalize("NFKD", texto.casefold())
    return " ".join("".join(c for c in sem if not unicodedata.combining(c)).split())


def sem_acento(texto: str) -> str:
    sem = unicodedata.normalize("NFKD", texto)
    return unicodedata.normalize("NFC", "".join(c for c in sem if not unicodedata.combining(c)))


def abreviar(rua: str, rng: random.Random) -> str:
    tipo, resto = rua.split(" ", 1)
    for titulo, abreviado in _ABREVIA_TITULO.items():
        resto = re.sub(rf"\b{titulo}\b", abreviado, resto)
    return f"{rng.choice(_ABREVIA_TIPO.get(tipo, (tipo,)))} {resto}"


def abreviar_bairro(bairro: str) -> str:
    primeira, _, resto = bairro.partition(" ")
    return (
        f"{_ABREVIA_BAIRRO[primeira]} {resto}" if primeira in _ABREVIA_BAIRRO and resto else bairro
    )


def errar(palavra: str, rng: random.Random) -> str:
    """One typo a citizen makes: a letter dropped, doubled or swapped, or a sound spelt
    another way."""
    trocas = (("ç", "ss"), ("ss", "ç"), ("ão", "am"), ("lh", "li"), ("x", "ch"), ("z", "s"),
              ("s", "z"), ("qu", "k"), ("ge", "je"), ("gi", "ji"), ("nh", "n"))  # fmt: skip
    fonetica = [(a, b) for a, b in trocas if a in palavra[1:]]
    modo = rng.randrange(4)
    if modo == 3 and fonetica:
        a, b = rng.choice(fonetica)
        i = palavra.index(a, 1)
        return palavra[:i] + b + palavra[i + len(a) :]
    i = rng.randrange(1, len(palavra) - 2)
    if modo == 0:
        return palavra[:i] + palavra[i + 1 :]
    if modo == 1:
        return palavra[: i + 1] + palavra[i] + palavra[i + 1 :]
    return palavra[:i] + palavra[i + 1] + palavra[i] + palavra[i + 2 :]


def errar_nome(nome: str, rng: random.Random) -> str:
    """The name with a typo in its longest word (never the type nor the first letter)."""
    palavras = nome.split(" ")
    inicio = 1 if palavras[0] in TIPOS else 0
    indices = [i for i in range(inicio, len(palavras)) if len(palavras[i]) >= 5]
    if not indices:
        indices = [max(range(len(palavras)), key=lambda i: len(palavras[i]))]
    i = max(indices, key=lambda k: (len(palavras[k]), -k))
    palavras[i] = errar(palavras[i], rng)
    return " ".join(palavras)


def ponto_milhar(numero: str) -> str:
    return f"{numero[:-3]}.{numero[-3:]}" if len(numero) > 3 else numero


def narrativa(rng: random.Random, tamanho: int) -> str:
    frases: list[str] = []
    while sum(len(f) + 1 for f in frases) < tamanho:
        frases.append(rng.choice(_NARRATIVA))
    return " ".join(frases)
