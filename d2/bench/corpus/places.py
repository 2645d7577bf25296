"""The categories of the address corpus about the place an address names, or none: the
homonymous municípios, streets named after other places, CEPs, the payload's own fields,
a place alone, no place at all, an address in a long text, GPS beside a text (see
d2/bench/corpus/categories.py for the order they are written in).
"""

from __future__ import annotations

import random

from d2.bench.corpus import street, territorio, text
from d2.bench.corpus.generator import (
    NENHUM,
    Gerador,
    esperado_inferencia,
    esperado_logradouro,
    esperado_numero,
)


def homonimos(g: Gerador) -> None:
    rng = g.rng
    for uf, cidade, codigo in territorio.HOMONIMOS:
        ruas = [r for r in g.ruas if r.municipio == codigo]
        for r in ruas[:3]:
            # The large user's own number first; then new ones.
            n = r.numeros[0] if r.numeros and uf != "MS" else g.numero(r)
            g.escrito("homonimo", r, f"{r.nome}, {n}, {cidade}{g.sufixo_uf(uf)}", n, uf=True)
            n = g.numero(r)
            g.escrito("homonimo", r, f"{r.nome}, {n}, {cidade}", n)
            g.escrito("homonimo", r, f"{r.nome}, {cidade}", None)
        if text.dobrar(g.t.municipios[codigo].nome) == text.dobrar(cidade):
            # RN's is named otherwise in the mesh: no name can find it there.
            forma = rng.choice((f"{cidade} - {uf}", f"{cidade}/{uf}", f"{cidade} {uf.lower()}"))
            g.caso("homonimo", {"endereco": forma}, esperado_inferencia(codigo, "municipio"), uf=uf)
    for texto, uf in (
        ("Campo Grande", "MS"),
        ("São Domingos", "GO"),
        ("Centro, Campo Grande", "MS"),
    ):
        g.caso("homonimo", {"endereco": texto}, dict(NENHUM), uf=uf)


def nomes_de_lugar(g: Gerador) -> None:
    rng = g.rng
    ruas = [r for r in g.ruas if street.nome_de_lugar(r.nome, g.lugares)]
    rng.shuffle(ruas)
    for k, r in enumerate(ruas[:14]):
        n = g.numero(r)
        if k % 3 == 2:
            texto = f"{text.abreviar(r.nome, rng)}, {n} - {r.bairro}, {r.cidade}"
            g.escrito("rua_com_nome_de_lugar", r, texto, n)
        elif k % 3:
            g.escrito("rua_com_nome_de_lugar", r, f"{r.nome} {n} {r.cidade} {r.uf}", n, uf=True)
        else:
            g.escrito("rua_com_nome_de_lugar", r, f"{r.nome}, {n}, {g.lugar(r)}", n, uf=True)


def _formas_cep(cep: str, rng: random.Random) -> str:
    return rng.choice((f"{cep[:5]}-{cep[5:]}", cep, f"CEP {cep[:5]}-{cep[5:]}", f"cep: {cep}"))


def ceps(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    # A CEP whose street the geocoder has: endereco at the street.
    for k in range(10):
        r = next(ruas)
        if k % 2 == 0:
            entidades = {"endereco": _formas_cep(r.cep, rng)}
        else:
            entidades = {"cep": rng.choice((r.cep, f"{r.cep[:5]}-{r.cep[5:]}"))}
        g.caso("cep_sozinho", entidades, esperado_logradouro(r), uf=r.uf)
    # A CEP whose street OSM lacks: the bairro its names give (an IBGE bairro of that
    # name in its município), else its município.
    no_osm = {(r.municipio, r.nome) for r in g.ruas}
    outros: list[tuple[str, str, str, str]] = []
    for uf, cidade, codigo, _ in territorio.MUNICIPIOS:
        for nome, (cep, bairro) in sorted(g.ruas_cep[(uf, text.dobrar(cidade))].items()):
            if (codigo, nome) not in no_osm and street.rua_valida(nome) and int(cep[-3:]) < 900:
                outros.append((cep, uf, codigo, bairro))
    rng.shuffle(outros)
    for cep, uf, codigo, bairro in outros[:6]:
        b = g.bairros_de(codigo).get(text.dobrar(bairro))
        esperado = (
            esperado_inferencia(b.codigo, "bairro")
            if b
            else esperado_inferencia(codigo, "municipio")
        )
        g.caso("cep_sozinho", {"endereco": _formas_cep(cep, rng)}, esperado, uf=uf)
    # A locality's CEP (CEP geral): its município.
    nomes = {(m.uf, text.dobrar(m.nome)): m.codigo for m in g.t.municipios.values()}
    gerais = [
        (cep, uf, nomes[(uf, cidade)])
        for (uf, cidade), cep in sorted(g.ceps_gerais.items())
        if (uf, cidade) in nomes
    ]
    rng.shuffle(gerais)
    for cep, uf, codigo in gerais[:4]:
        esperado = esperado_inferencia(codigo, "municipio")
        cep_campo = rng.choice((cep, f"{cep[:5]}-{cep[5:]}"))
        g.caso("cep_sozinho", {"cep": cep_campo}, esperado, uf=uf)

    # A CEP contradicting the text: the street found where the text says wins.
    for _ in range(12):
        r = next(ruas)
        outra = next(ruas)
        while outra.municipio == r.municipio:
            outra = next(ruas)
        n = g.numero(r)
        texto = f"{r.nome}, {n}, {g.lugar(r)}, CEP {outra.cep[:5]}-{outra.cep[5:]}"
        g.escrito("cep_contradiz", r, texto, n, uf=True)


def campos(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(14):
        r = next(ruas)
        modo = k % 4
        if modo == 0:
            n = g.numero(r)
            entidades = {"nomeRua": r.nome, "endereco": f"{r.nome}, {n}, {g.lugar(r)}"}
            esperado = esperado_numero(r)
        elif modo == 1:
            entidades = {"nomeRua": r.nome, "cep": r.cep}
            esperado = esperado_logradouro(r)
        elif modo == 2:
            n = g.numero(r)
            cep = f"{r.cep[:5]}-{r.cep[5:]}"
            entidades = {"nomeRua": r.nome, "cep": cep, "endereco": f"nº {n}"}
            esperado = esperado_numero(r)
        else:
            n = g.numero(r)
            entidades = {"endereco": f"{r.nome}, {n}", "cep": _formas_cep(r.cep, rng)}
            esperado = esperado_numero(r)
        g.caso("campos", entidades, esperado, uf=r.uf)


def lugares(g: Gerador) -> None:
    rng = g.rng
    principais = {m[2] for m in territorio.MUNICIPIOS}
    bairros = sorted(
        (b for b in g.t.bairros.values() if b.municipio in principais), key=lambda b: b.codigo
    )
    rng.shuffle(bairros)
    for k, b in enumerate(bairros[:8]):
        m = g.t.municipios[b.municipio]
        nome = (b.nome, f"Bairro {b.nome}", b.nome.lower())[k % 3]
        if k % 2:
            texto = f"{nome} - {m.nome}/{m.uf}"
        else:
            texto = f"{nome}, {m.nome}{g.sufixo_uf(m.uf)}"
        esperado = esperado_inferencia(b.codigo, "bairro")
        g.caso("lugar_sozinho", {"endereco": texto}, esperado, uf=m.uf)
    municipios = sorted(g.t.municipios.values(), key=lambda m: m.codigo)
    rng.shuffle(municipios)
    for k, m in enumerate(municipios[:6]):
        texto = (f"{m.nome} - {m.uf}", f"{m.nome}/{m.uf}", f"município de {m.nome}, {m.uf}")[k % 3]
        esperado = esperado_inferencia(m.codigo, "municipio")
        g.caso("lugar_sozinho", {"endereco": texto}, esperado, uf=m.uf)
    # A município named alone: a place only where no other in Brazil (nor a UF) has its name.
    for m in municipios[6:10]:
        nome = text.dobrar(m.nome)
        unico = len(g.ufs_do_nome[nome]) == 1 and g.t.homonimos[nome] == 1
        unico = unico and nome not in g.t.nomes_uf
        esperado = esperado_inferencia(m.codigo, "municipio") if unico else dict(NENHUM)
        g.caso("lugar_sozinho", {"endereco": m.nome}, esperado, uf=m.uf)


def sem_resposta(g: Gerador) -> None:
    rng = g.rng
    centro = ("Centro", "Bairro Centro", "centro da cidade", "no centro", "CENTRO, perto da praça")
    for texto in (*centro, "região central"):
        g.caso("centro_sozinho", {"endereco": texto}, dict(NENHUM), uf=None)
    # A street or bairro named after a place ("Itapema 825") would name one: not here.
    ruas = g.ruas_em_ordem(
        lambda r: (
            not street.nome_de_lugar(r.nome, g.lugares) and text.dobrar(r.bairro) not in g.lugares
        )
    )
    for k in range(12):
        r = next(ruas)
        n = g.numero(r)
        texto = (f"{r.nome}, {n}", f"{r.titulo} {n}", f"{r.nome} {n} {r.bairro}")[k % 3]
        g.caso("sem_lugar", {"endereco": texto}, dict(NENHUM), uf=r.uf)
    for texto in rng.sample(text.SEM_SENTIDO, 12):
        g.caso("sem_sentido", {"endereco": texto}, dict(NENHUM), uf=None)


def textos_longos(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for k in range(10):
        if k >= 8:
            texto = text.narrativa(rng, 2048)
            g.caso("texto_longo", {"endereco": texto}, dict(NENHUM), uf=None)
            continue
        r = next(ruas)
        n = g.numero(r)
        endereco = f"{r.nome}, {n}, {g.lugar(r)}"
        if k < 5:
            texto = f"{endereco}. {text.narrativa(rng, 2000)}"
        else:
            texto = f"{text.narrativa(rng, 2000)} Endereço: {endereco}"
        g.caso("texto_longo", {"endereco": texto}, esperado_numero(r), uf=r.uf)


def gps(g: Gerador) -> None:
    rng = g.rng
    ruas = g.ruas_em_ordem()
    for _ in range(12):
        r = next(ruas)
        texto_de = next(ruas)
        while texto_de.municipio == r.municipio:
            texto_de = next(ruas)
        lng, lat = r.ponto(rng.random(), -0.00003)
        n = g.numero(texto_de)
        texto = f"{texto_de.nome}, {n}, {g.lugar(texto_de)}"
        esperado: dict[str, str | None] = {
            "uc": g.uc_do_ponto(r.municipio, (lng, lat)),
            "metodo": "gps",
            "confianca": "alta",
            "precisao": None,
        }
        g.caso("gps_com_texto", {"endereco": texto}, esperado, uf=r.uf, gps=(lng, lat))
