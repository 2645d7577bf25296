"""The categories of the address corpus (d2/bench/address_corpus.py): the ways citizens
write an address, each case with the answer expected of D-2 (the rules are in
d2/bench/address_corpus.py's docstring). The order matters: the cases draw on one seeded
random generator, so a category moved or changed changes the cases after it.
"""

from __future__ import annotations

from collections import defaultdict

from d2.bench.corpus import places, text
from d2.bench.corpus.generator import (
    Gerador,
    esperado_numero,
)
from d2.bench.corpus.street import Rua


def escrever(g: Gerador) -> None:
    """Every category's cases, in the corpus's order."""
    rng = g.rng
    ruas = g.ruas_em_ordem()

    # Tidy text: the control group.
    for _ in range(16):
        r = next(ruas)
        n = g.numero(r)
        texto = f"{r.nome}, {n}, {g.lugar(r)}"
        g.caso("completo", {"endereco": texto}, esperado_numero(r), uf=r.uf)

    # The type and the titles abbreviated: R., Av., Trav., Dr., Cel.
    for _ in range(20):
        r = next(ruas)
        n = g.numero(r)
        texto = f"{text.abreviar(r.nome, rng)}, {n} - {r.cidade}/{r.uf}"
        g.caso("abreviacao", {"endereco": texto}, esperado_numero(r), uf=r.uf)

    com_acento = g.ruas_em_ordem(lambda r: text.sem_acento(r.nome + r.cidade) != r.nome + r.cidade)
    for _ in range(16):
        r = next(com_acento)
        n = g.numero(r)
        texto = text.sem_acento(f"{r.nome}, {n}, {g.lugar(r)}")
        g.caso("sem_acento", {"endereco": texto}, esperado_numero(r), uf=r.uf)

    for k in range(16):
        r = next(ruas)
        n = g.numero(r)
        if k % 2:
            g.escrito("minusculas", r, f"{r.nome} {n} {r.bairro} {r.cidade}".lower(), n)
        else:
            g.escrito("minusculas", r, f"{r.nome}, {n}, {g.lugar(r)}".lower(), n, uf=True)

    for k in range(16):
        r = next(ruas)
        n = g.numero(r)
        if k % 3 == 2:
            g.escrito("sem_virgula", r, f"{r.nome} {n} {r.cidade}", n)
        else:
            bairro = f" {r.bairro}" if k % 3 else ""
            g.escrito("sem_virgula", r, f"{r.nome} {n}{bairro} {r.cidade} {r.uf}", n, uf=True)

    for _ in range(16):
        r = next(ruas)
        n = g.numero(r)
        marca = rng.choice(("nº ", "n° ", "Nº", "n. ", "número ", "N "))
        g.escrito("numero_marcado", r, f"{r.nome}, {marca}{n}, {g.lugar(r)}", n, uf=True)

    for _ in range(12):
        r = next(ruas)
        n = g.numero(r, grande=True)
        texto = f"{r.nome}, {text.ponto_milhar(n)}, {g.lugar(r)}"
        g.escrito("milhar_com_ponto", r, texto, n, uf=True)

    _numeros_e_complementos(g)
    _referencias(g)
    _erros(g)
    places.homonimos(g)
    places.nomes_de_lugar(g)
    places.ceps(g)
    places.campos(g)
    places.lugares(g)
    places.sem_resposta(g)
    places.textos_longos(g)
    places.gps(g)


def _numeros_e_complementos(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(16):
        r = next(ruas)
        sn = rng.choice(("S/N", "s/n", "sn", "sem número", "S/Nº", "s. n."))
        if k % 2:
            texto = f"{r.nome} {sn} - {r.bairro} - {r.cidade}/{r.uf}"
        else:
            texto = f"{r.nome}, {sn}, {g.lugar(r)}"
        g.escrito("sem_numero", r, texto, None, uf=True)

    for k in range(20):
        r = next(ruas)
        if k % 5 == 4:  # a quadra and lote instead of a number, as in Goiás
            qd = f"qd {rng.randint(1, 40)} lt {rng.randint(1, 30)}"
            g.escrito("complemento", r, f"{r.nome}, {qd}, {g.lugar(r)}", None, uf=True)
            continue
        n = g.numero(r)
        complemento = rng.choice(
            (
                f"apto {rng.randint(1, 40)}",
                f"casa {rng.randint(1, 9)}",
                "fundos",
                f"bloco {rng.choice('ABCD')} apto {rng.randint(101, 408)}",
                f"ap. {rng.randint(11, 99)}",
                f"sala {rng.randint(1, 20)}",
                f"qd {rng.randint(1, 40)} lt {rng.randint(1, 30)}",
            )
        )
        if k % 2:
            texto = f"{r.nome} {n} {complemento} - {g.lugar(r)}"
        else:
            texto = f"{r.nome}, {n}, {complemento}, {g.lugar(r)}"
        g.escrito("complemento", r, texto, n, uf=True)

    for k in range(20):
        r = next(ruas)
        n = g.numero(r)
        bairro = rng.choice((r.bairro, f"Bairro {r.bairro}", text.abreviar_bairro(r.bairro)))
        if k % 3 == 2:
            g.escrito("com_bairro", r, f"{r.nome}, nº {n}, {bairro}, {r.cidade}", n)
        elif k % 3:
            texto = f"{r.nome} {n} - {bairro} - {r.cidade}/{r.uf}"
            g.escrito("com_bairro", r, texto, n, uf=True)
        else:
            g.escrito("com_bairro", r, f"{r.nome}, {n}, {bairro}, {g.lugar(r)}", n, uf=True)


def _referencias(g: Gerador) -> None:
    vizinhas: dict[str, list[Rua]] = defaultdict(list)
    for r in g.ruas:
        vizinhas[r.uc].append(r)
    ruas = g.ruas_em_ordem(lambda r: len(vizinhas[r.uc]) > 1)
    for k in range(20):
        r = next(ruas)
        modo = k % 5
        if modo == 0:
            n = g.numero(r)
            g.escrito("referencia", r, f"em frente ao nº {n} da {r.nome}, {g.lugar(r)}", n, uf=True)
        elif modo == 1:
            texto = f"próximo à {g.escola(r)}, {r.cidade}{g.sufixo_uf(r.uf)}"
            g.caso("referencia", {"endereco": texto}, esperado_numero(r), uf=r.uf)
        elif modo == 2:
            outra = next(v for v in vizinhas[r.uc] if v is not r)
            texto = f"{r.nome} esquina com {outra.nome}, {g.lugar(r)}"
            g.escrito("referencia", r, texto, None, uf=True)
        elif modo == 3:
            n = g.numero(r)
            texto = f"na {r.nome}, perto do número {n}, {r.bairro}, {g.lugar(r)}"
            g.escrito("referencia", r, texto, n, uf=True)
        else:
            texto = f"ao lado da {g.escola(r)}, {r.nome}, {g.lugar(r)}"
            g.caso("referencia", {"endereco": texto}, esperado_numero(r), uf=r.uf)


def _erros(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem(lambda r: any(len(p) >= 6 for p in r.titulo.split()))
    for k in range(20):
        r = next(ruas)
        n = g.numero(r)
        if k % 4 == 3:
            texto = f"{r.nome}, {n}, {text.errar_nome(r.cidade, rng)}{g.sufixo_uf(r.uf)}"
        elif k % 4 == 2 and len(r.bairro) >= 6:
            rua, bairro = text.errar_nome(r.nome, rng), text.errar_nome(r.bairro, rng)
            texto = f"{rua}, {n}, {bairro}, {g.lugar(r)}"
        else:
            texto = f"{text.errar_nome(r.nome, rng)}, {n}, {g.lugar(r)}"
        g.escrito("erro_de_digitacao", r, texto, n, uf=True)
