"""`d2 map`: one self-contained HTML page of what needs a human.

Pending reviews and dead-lettered points over the UC polygons around them, the reviews
closed without a polygon (by the near rule, by an operator, discarded) and the latest
resolutions coloured by level, with a legend and a popup per point. Leaflet's JS and CSS
are inlined from the copy vendored in d2/_leaflet (Leaflet 1.9.4, BSD-2-Clause): the page
opens offline, from a file, with no CDN. No tile layer by default (tiles need the
internet); give `tiles` (e.g. "OpenStreetMap") to add one — offline it simply stays grey.
"""

from __future__ import annotations

import html
import uuid
from pathlib import Path
from typing import Any

import folium

from d2 import db
from d2.handler import handler
from d2.ops import html_page, revisoes

COR_REVISAO = "#d62728"
COR_DEAD_LETTER = "#111111"
# Reviews closed without a polygon, by step (d2.revisoes_tratadas.passo): colour, label.
TRATADAS = {
    "proximidade": ("#00a6a6", "revisão respondida pela regra de proximidade"),
    "operador": ("#c51b8a", "revisão atribuída por um operador"),
    "descarte": ("#a6761d", "revisão descartada por um operador"),
}
CORES_NIVEL = {
    1: "#8c564b",
    2: "#2ca02c",
    3: "#bcbd22",
    4: "#1f77b4",
    5: "#9467bd",
    6: "#ff7f0e",
    7: "#7f7f7f",
}
NOMES_NIVEL = {1: "logradouro", 2: "bairro", 3: "distrito", 4: "município", 5: "UF"}
NOMES_NIVEL |= {6: "região", 7: "país"}


def _cor(nivel: int) -> str:
    return CORES_NIVEL.get(nivel, "#17becf")


def _uuid_ou_aviso(valor: Any) -> str:
    """A dead letter's demanda_id is the payload's text as written: shown only when a uuid."""
    try:
        return str(uuid.UUID(str(valor)))
    except ValueError:
        return "(não é um uuid)"


def _estilo_poligono(feature: dict[str, Any]) -> dict[str, Any]:
    cor = _cor(int(feature["properties"]["nivel"]))
    return {"color": cor, "weight": 1.5, "fillColor": cor, "fillOpacity": 0.08}


def _legenda(contagens: dict[str, int], niveis: list[int], sem_coordenadas: int) -> str:
    def item(cor: str, borda: str, rotulo: str) -> str:
        return (
            f'<div><span style="display:inline-block;width:11px;height:11px;'
            f"border-radius:50%;background:{cor};border:1.5px solid {borda};"
            f'margin-right:6px;vertical-align:middle"></span>{html.escape(rotulo)}</div>'
        )

    linhas = [
        item(COR_REVISAO, "#ffffff", f"revisão pendente ({contagens['revisoes']})"),
        item(COR_DEAD_LETTER, "#ffffff", f"dead letter ({contagens['dead_letters']})"),
    ]
    linhas += [
        item(cor, "#ffffff", f"{rotulo} ({contagens[passo]})")
        for passo, (cor, rotulo) in TRATADAS.items()
        if contagens.get(passo)
    ]
    linhas += [
        item(_cor(n), "#ffffff", f"resolvida: {NOMES_NIVEL.get(n, f'nível {n}')}") for n in niveis
    ]
    if sem_coordenadas:
        linhas.append(f"<div>+ {sem_coordenadas} dead letters sem coordenadas</div>")
    return (
        '<div id="d2-legenda" style="position:fixed;bottom:24px;left:12px;z-index:9999;'
        "background:rgba(255,255,255,.92);padding:8px 10px;border:1px solid #999;"
        'border-radius:4px;font:12px/1.5 sans-serif;box-shadow:0 1px 4px rgba(0,0,0,.3)">'
        "<b>D-2 — o que precisa de atenção</b>" + "".join(linhas) + "</div>"
    )


def _ler(conn: db.Connection, limite: int) -> dict[str, list[dict[str, Any]]]:
    with db.mapped_errors():
        pendentes = [
            {
                "demanda_id": r["demanda_id"],
                "event_id": r["event_id"],
                "lat": r["coordenadas_lat"],
                "lng": r["coordenadas_lng"],
                "criado_em": r["criado_em"],
                "uc_proxima": r["uc_proxima_nome"],
            }
            for r in revisoes.listar(conn, limite)
        ]
        mortos = conn.execute(
            db.q("map_dead_letters"), {"consumidor": handler.CONSUMER, "limite": limite}
        ).fetchall()
        resolucoes = conn.execute(db.q("map_resolucoes"), {"limite": limite}).fetchall()
        tratadas = conn.execute(db.q("map_revisoes_closed"), {"limite": limite}).fetchall()
        alvos = [(r["lat"], r["lng"]) for r in pendentes + tratadas] + [
            (d["lat"], d["lng"]) for d in mortos if d["lat"] is not None
        ]
        poligonos = conn.execute(
            db.q("map_poligonos"),
            {"lats": [a[0] for a in alvos], "lngs": [a[1] for a in alvos]},
        ).fetchall()
    return {
        "revisoes": pendentes,
        "mortos": mortos,
        "resolucoes": resolucoes,
        "tratadas": tratadas,
        "poligonos": poligonos,
    }


def gerar_mapa(
    conn: db.Connection, saida: Path, *, limite: int = 5000, tiles: str | None = None
) -> dict[str, Any]:
    """Write the map to `saida`; returns what it drew. `limite` bounds each kind of point.
    One helper per layer, drawn from the bottom up."""
    dados = _ler(conn, limite)
    mapa = folium.Map(location=[-15.0, -50.0], zoom_start=4, tiles=tiles, control_scale=True)
    html_page.inline_leaflet(mapa)
    _camada_poligonos(mapa, dados["poligonos"])
    por_nivel = _camadas_resolucoes(mapa, dados["resolucoes"])
    tratadas = _camadas_tratadas(mapa, dados["tratadas"])
    pendentes = _camada_revisoes(mapa, dados["revisoes"])
    com_coord = _camada_dead_letters(mapa, dados["mortos"])
    sem_coordenadas = len(dados["mortos"]) - len(com_coord)
    contagens = {
        "revisoes": len(pendentes),
        "dead_letters": len(com_coord),
        "resolucoes": len(dados["resolucoes"]),
    } | tratadas
    html_page.figura(mapa).html.add_child(
        folium.Element(_legenda(contagens, sorted(por_nivel), sem_coordenadas))
    )
    folium.LayerControl(collapsed=False).add_to(mapa)
    pontos = [
        (p["lat"], p["lng"])
        for p in dados["resolucoes"] + dados["tratadas"] + pendentes + com_coord
    ]
    limites = html_page.limites(pontos)
    if limites is not None:
        mapa.fit_bounds(limites, padding=(30, 30), max_zoom=14)

    pagina = mapa.get_root().render()
    html_page.checar_autocontido(pagina)
    html_page.gravar_privado(saida, pagina)
    return {
        "saida": str(saida),
        "revisoes": len(pendentes),
        "dead_letters": len(com_coord),
        "dead_letters_sem_coordenadas": sem_coordenadas,
        "resolucoes": len(dados["resolucoes"]),
        "resolucoes_por_nivel": {str(n): len(v) for n, v in sorted(por_nivel.items())},
        "revisoes_tratadas": tratadas,
        "poligonos": len(dados["poligonos"]),
        "bytes": len(pagina.encode()),
    }


def _camada_poligonos(mapa: folium.Map, linhas: list[dict[str, Any]]) -> None:
    """The level ≤ 4 UCs around the points left without an answer."""
    if not linhas:
        return
    poligonos = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": p["geometria"],
                "properties": {
                    "nome": html_page.texto(p["nome"]),
                    "nivel": p["nivel"],
                    "unidade_civica_id": str(p["unidade_civica_id"]),
                },
            }
            for p in linhas
        ],
    }
    folium.GeoJson(
        poligonos,
        name="UCs perto dos pontos sem resposta",
        style_function=_estilo_poligono,
        tooltip=folium.GeoJsonTooltip(fields=["nome", "nivel"], aliases=["UC", "nível"]),
    ).add_to(mapa)


def _camadas_resolucoes(
    mapa: folium.Map, linhas: list[dict[str, Any]]
) -> dict[int, list[dict[str, Any]]]:
    """The latest resolutions, one layer per level; returns them by level."""
    por_nivel: dict[int, list[dict[str, Any]]] = {}
    for r in linhas:
        por_nivel.setdefault(r["nivel"], []).append(r)
    campos_res = [
        ("demanda_id", "demanda_id"),
        ("event_id", "event_id"),
        ("uc_nome", "UC"),
        ("nivel", "nível"),
        ("criado_em", "resolvida em"),
    ]
    for nivel in sorted(por_nivel, reverse=True):
        html_page.camada_pontos(
            mapa,
            f"Resolvidas: {NOMES_NIVEL.get(nivel, f'nível {nivel}')}",
            html_page.pontos(por_nivel[nivel], [c for c, _ in campos_res]),
            campos_res,
            cor=_cor(nivel),
            borda="#ffffff",
            raio=5,
            classe=f"d2-resolucao d2-nivel-{nivel}",
        )
    return por_nivel


def _camadas_tratadas(mapa: folium.Map, linhas: list[dict[str, Any]]) -> dict[str, int]:
    """The reviews closed without a polygon, one layer per step, with the unit, its
    distance, who, why and when; returns how many of each were drawn."""
    campos = [
        ("demanda_id", "demanda_id"),
        ("event_id", "event_id"),
        ("uc", "UC"),
        ("distancia", "distância (m)"),
        ("tratado_por", "por"),
        ("motivo", "motivo"),
        ("tratado_em", "em"),
    ]
    contagem: dict[str, int] = {}
    for passo, (cor, rotulo) in TRATADAS.items():
        do_passo = [
            r
            | {
                "uc": r["uc_nome"] or r["unidade_civica_id"] or "nenhuma",
                "distancia": None if r["distancia_m"] is None else round(r["distancia_m"]),
            }
            for r in linhas
            if r["passo"] == passo
        ]
        contagem[passo] = len(do_passo)
        html_page.camada_pontos(
            mapa,
            rotulo[0].upper() + rotulo[1:],
            html_page.pontos(do_passo, [c for c, _ in campos]),
            campos,
            cor=cor,
            borda="#ffffff",
            raio=6,
            classe=f"d2-tratada d2-tratada-{passo}",
        )
    return contagem


def _camada_revisoes(mapa: folium.Map, linhas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pending reviews, with the nearest UC as a hint; returns the points drawn."""
    pendentes = [r | {"uc": f"nenhuma (mais próxima: {r['uc_proxima'] or '—'})"} for r in linhas]
    campos_rev = [
        ("demanda_id", "demanda_id"),
        ("event_id", "event_id"),
        ("uc", "UC"),
        ("criado_em", "na fila desde"),
    ]
    html_page.camada_pontos(
        mapa,
        "Revisões pendentes",
        html_page.pontos(pendentes, [c for c, _ in campos_rev]),
        campos_rev,
        cor=COR_REVISAO,
        borda="#ffffff",
        raio=7,
        classe="d2-revisao",
    )
    return pendentes


def _camada_dead_letters(mapa: folium.Map, linhas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pending dead letters whose event carries coordinates; returns those drawn."""
    com_coord = [
        d | {"uc": "—", "demanda_id": _uuid_ou_aviso(d["demanda_id"])}
        for d in linhas
        if d["lat"] is not None
    ]
    campos_dl = [("demanda_id", "demanda_id"), ("event_id", "event_id"), ("uc", "UC")]
    campos_dl.append(("erro", "erro"))
    html_page.camada_pontos(
        mapa,
        "Dead letters",
        html_page.pontos(com_coord, [c for c, _ in campos_dl]),
        campos_dl,
        cor=COR_DEAD_LETTER,
        borda="#ffffff",
        raio=7,
        classe="d2-dead-letter",
    )
    return com_coord
