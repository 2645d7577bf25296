"""The demo of the README's first command: a sample territory, a few hundred events
(good and bad) through the real worker, and a summary of where everything ended."""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

from d2 import config, db, errors, logs
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir, flag, positivo
from d2.eventlog import registry
from d2.geocoder.nominatim import importer
from d2.handler import classification, handler
from d2.importers import cep
from d2.territorio import comunitario
from d2.worker import loop

# Address-only demands, for the geocoding stage's ladder: by street and house (tidy, and
# as citizens write them), by CEP (its street, or its bairro where OSM lacks the street),
# by bairro or município named, and two that name no credible place ("Centro" alone, a UF that
# contradicts).
ENDERECOS: list[dict[str, str]] = [
    {"endereco": "Rua das Palmeiras, 123, Vila Aurora"},
    {"endereco": "R. das Palmeiras nº 123 apto 4 Vila Aurora/AU"},
    {"cep": "78010-500"},
    {"endereco": "Avenida Brasil, 250 - Porto Sereno"},
    {"nomeRua": "Rua Marechal Floriano", "endereco": "Rua Marechal Floriano, 456, Campo Largo"},
    {"cep": "78300-200"},
    {"endereco": "Jardim das Flores, Vila Aurora"},
    {"endereco": "Serra Clara - BO"},
    {"endereco": "Centro"},
    {"endereco": "Rua das Palmeiras, 123, Vila Aurora, BO"},
]

# The drawn bairro: a square of 0.02 degree (~5 km² here), within the bairros' budget of a
# município (10 km² a day made without a moderator: docs/territorio.md).
_MEIO_LADO = 0.01
# (name, shift as a share of the side, size as a multiple of the side): the bairro, a
# confirmation shifted by 2% of its side, an alternative shifted by 25% (overlap ~0.6), and
# a drawing four times the side over all of them, which a moderator must see first.
_DRAWINGS = (
    ("Jardim Desenhado", 0.0, 1),
    ("Jardim Desenhado", 0.02, 1),
    ("Jardim Desenhado II", 0.25, 1),
    ("Jardim Enorme", -1.5, 4),
)


def _payload(rng: random.Random, lat: Any, lng: Any) -> dict[str, Any]:
    return {
        # New ids every run: running the demo again adds demands rather than duplicates.
        "demanda_id": str(uuid.uuid4()),
        "titulo": rng.choice(["Buraco na rua", "Poste apagado", "Lixo acumulado", "Praça suja"]),
        "descricao_limpa": "Relato de exemplo gerado pela demo",
        "tipo_midia_processada": "texto",
        "coordenadas_validadas": {"lat": lat, "lng": lng},
        "confianca_normalizacao": round(rng.uniform(0.5, 1.0), 2),
        "origem_normalizacao": "automatico",
        "conteudo_suspeito": False,
    }


def eventos_de_exemplo(n: int, seed: int = 2026) -> list[tuple[dict[str, Any] | Any, str]]:
    """(payload, versao_schema) pairs: mostly good demands, plus each kind of bad one."""
    rng = random.Random(seed)
    from d2.importers import sample  # geopandas: ~0.8 s the other commands need not pay

    pontos = sample.sample_points(n, seed)
    eventos: list[tuple[Any, str]] = []
    for i, (lat, lng) in enumerate(pontos):
        payload = _payload(rng, lat, lng)
        if i % 50 == 7:
            payload["coordenadas_validadas"] = None  # no coordinates: discarded
        elif i % 50 == 13:
            payload["coordenadas_validadas"] = {"lat": 123.4, "lng": lng}  # out of range
        elif i % 50 == 21:
            payload["demanda_id"] = "not-a-uuid"  # dead letter
        elif i % 50 == 29:
            eventos.append((payload, "1.2.0"))
            payload = dict(payload)  # same demanda_id under a new event: dead letter
        eventos.append((payload, "1.2.0"))
    eventos.append(([1, 2, 3], "1.2.0"))  # not an object: dead letter
    return eventos


def eventos_com_endereco(seed: int = 2026) -> list[tuple[dict[str, Any], str]]:
    """Address-only demands (no coordinates), one per ENDERECOS entry."""
    rng = random.Random(seed)
    eventos: list[tuple[dict[str, Any], str]] = []
    for entidades in ENDERECOS:
        payload = _payload(rng, None, None)
        payload["coordenadas_validadas"] = None
        payload["entidades_extraidas"] = entidades
        eventos.append((payload, "1.2.0"))
    return eventos


def carregar_nominatim(settings: config.Settings, url: str) -> str | None:
    """The sample OSM file into Nominatim, unless it is what is loaded already; None when
    done, else why not (osm2pgsql missing, ...)."""

    try:
        estado = importer.status(settings, url)
        ultima = estado.get("ultima_importacao") or {}
        if estado.get("carregado") and ultima.get("arquivo") == "amostra.osm":
            return None
        with tempfile.TemporaryDirectory(prefix="d2-demo-osm-") as tmp:
            from d2.importers import sample_osm

            arquivo = sample_osm.write_osm(Path(tmp) / "amostra.osm")
            importer.importar(settings, url, arquivo, criar_papel_web=True, threads=2)
    except errors.D2Error as exc:
        return str(exc).splitlines()[0]
    return None


def executar(url: str, n: int = 300, *, enderecos: bool = True) -> dict[str, Any]:
    """Load the sample (and its OSM file into Nominatim) into the database at url,
    publish n demands like D-1b does plus some with only an address, drain them,
    summarise."""
    settings = config.load()
    from d2.importers import sample, sample_cep  # geopandas, shapely: see eventos_de_exemplo

    importacao = sample.load_sample(url)
    with tempfile.TemporaryDirectory(prefix="d2-demo-cep-") as tmp:
        # `d2 cep import` of the sample's own CEPs (CEP Aberto's dump format).
        ceps = cep.importar(url, sample_cep.write_dump(Path(tmp) / "ceps"))
    sem_nominatim = carregar_nominatim(settings, url) if enderecos else "not asked"
    extras = eventos_com_endereco() if sem_nominatim is None else []
    with db.connect(url, autocommit=True) as conn:
        with conn.transaction():
            # A fresh start for the demo's consumer: replay what we publish now.
            handler.CURSOR.semear(conn, no_inicio=False)
            for payload, versao in eventos_de_exemplo(n) + extras:
                conn.execute(
                    db.q("demo_publish_upstream"),
                    {
                        "event_id": uuid.uuid4(),
                        "tipo": handler.TIPO_ENTRADA,
                        "origem": "D-1b",
                        "versao": versao,
                        "payload": json.dumps(payload),
                    },
                )
    resultado = loop.Worker(settings, url=url).executar(drain=True)
    drawings = _desenhar(url)
    resultado.somar(loop.Worker(settings, url=url).executar(drain=True))
    with db.connect(url, autocommit=True) as conn:
        em_dia(conn, seguir=True)
        territorio_comunitario = _drawings_resumo(conn, drawings)
        por_nivel = conn.execute(db.q("demo_resolved_by_level")).fetchall()
        por_metodo = conn.execute(db.q("demo_resolved_by_method")).fetchall()
        lag = conn.execute(db.q("demo_lag")).fetchone()
        exemplo = conn.execute(db.q("demo_example_point")).fetchone()
    return {
        "territorio": importacao.total().read,
        "ceps": {
            "lidos": ceps.lidos,
            "municipios": {k: n for k, (_, n) in ceps.municipios.items()},
        },
        # A parked address demand is counted again where it ends.
        "eventos": sum(resultado.contagem.values())
        - resultado.contagem.get(str(classification.Outcome.GEOCODIFICACAO_PENDENTE), 0),
        "desfechos": dict(resultado.contagem),
        "resolvidos_por_nivel": {str(r["nivel"]): r["n"] for r in por_nivel},
        "resolvidos_por_metodo": {r["metodo"]: r["n"] for r in por_metodo},
        "enderecos": len(extras),
        "enderecos_sem_nominatim": sem_nominatim,
        "lag": lag["lag"] if lag else None,
        "exemplo": (exemplo["lat"], exemplo["lng"]) if exemplo else (-10.0, -50.0),
        "database_url": url,
        "desenhos": territorio_comunitario,
    }


def _desenhar(url: str) -> list[uuid.UUID]:
    """Citizens draw a bairro around stored demands, as L-1 publishes lugar.cadastrado."""
    with db.connect(url, autocommit=True) as conn:
        centro = conn.execute(db.q("demo_centro_to_bairro"), {"meio": _MEIO_LADO}).fetchone()
        if centro is None:
            return []
        eventos = []
        rng = random.Random(7)
        with conn.transaction():
            # Complaints from the streets of the future bairro, just before it is drawn:
            # they resolve to the município, then the follow-up moves them to the bairro.
            for _ in range(12):
                lat = centro["lat"] + rng.uniform(-0.8, 0.8) * _MEIO_LADO
                lng = centro["lng"] + rng.uniform(-0.8, 0.8) * _MEIO_LADO
                conn.execute(
                    db.q("demo_publish_upstream"),
                    {
                        "event_id": uuid.uuid4(),
                        "tipo": handler.TIPO_ENTRADA,
                        "origem": "D-1b",
                        "versao": "1.2.0",
                        "payload": json.dumps(_payload(rng, round(lat, 6), round(lng, 6))),
                    },
                )
            for nome, deslocamento, tamanho in _DRAWINGS:
                x0 = centro["lng"] - _MEIO_LADO + deslocamento * 2 * _MEIO_LADO
                y0 = centro["lat"] - _MEIO_LADO * tamanho
                x1, y1 = x0 + 2 * _MEIO_LADO * tamanho, y0 + 2 * _MEIO_LADO * tamanho
                anel = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
                drawing = {
                    "lugar_id": str(uuid.uuid4()),
                    "tipo_lugar": comunitario.TIPO_LUGAR,
                    "geometria": {"type": "Polygon", "coordinates": [anel]},
                    "nivel": 2,
                    "nome": nome,
                    "autor_id": str(uuid.uuid4()),
                }
                event_id = uuid.uuid4()
                conn.execute(
                    db.q("demo_publish_upstream"),
                    {
                        "event_id": event_id,
                        "tipo": comunitario.TIPO_ENTRADA,
                        "versao": registry.validar(comunitario.TIPO_ENTRADA, drawing),
                        "origem": "L-1",
                        "payload": json.dumps(drawing),
                    },
                )
                eventos.append(event_id)
    return eventos


def _drawings_resumo(conn: db.Connection, eventos: list[uuid.UUID]) -> list[dict[str, Any]]:
    linhas = conn.execute(db.q("demo_drawings"), {"eventos": eventos}).fetchall()
    resumo = []
    for linha in linhas:
        refeitas = conn.execute(db.q("demo_regeo_history"), {"uc": linha["alvo_uc_id"]}).fetchone()
        resumo.append(
            {
                "nome": linha["nome"],
                "decisao": linha["decisao"],
                "sobreposicao": linha["sobreposicao"],
                "moderacao": linha["moderacao"],
                "demandas_na_uc": linha["demandas"],
                "refeitas_pelo_acompanhamento": refeitas["n"] if refeitas else 0,
            }
        )
    return resumo


def formatar(report: dict[str, Any]) -> str:
    """The demo's summary for a person."""
    outcomes = report["desfechos"]
    linhas = [
        "D-2 demo",
        f"  sample UC polygons:   {report['territorio']}",
        f"  sample CEPs (d2 cep import): {report['ceps']['lidos']}; by how their município "
        "was linked: "
        + ", ".join(f"{k} {v}" for k, v in sorted(report["ceps"]["municipios"].items())),
        f"  events handled:       {report['eventos']}",
        "  resolutions stored, per level (whole database): "
        + (
            ", ".join(f"nivel {k}: {v}" for k, v in report["resolvidos_por_nivel"].items())
            or "none"
        ),
    ]
    nomes = {
        "georreferenciada": "georeferenced now",
        "republicada": "republished (replay)",
        "sem_coordenadas": "discarded: no coordinates",
        "endereco_nao_resolvido": "discarded: no credible place",
        "coordenadas_invalidas": "discarded: invalid coordinates",
        "revisao_pendente": "pending manual review",
        "conflito": "in conflict (d2 conflicts list)",
        "dead_letter": "dead letters",
    }
    for chave, nome in nomes.items():
        linhas.append(f"  {nome + ':':29} {outcomes.get(chave, 0)}")
    linhas.append("  citizen-drawn bairros (lugar.cadastrado → consensus → core.uc_polygons):")
    for d in report["desenhos"]:
        detalhe = {
            "nova": f"new community UC; {d['demandas_na_uc']} demands resolve to it now, "
            f"{d['refeitas_pelo_acompanhamento']} of them moved there from the município "
            "by the automatic re-georeferencing",
            "confirmacao": f"confirmation of it (overlap {d['sobreposicao']})",
            "alternativa": f"alternative version (overlap {d['sobreposicao']}), "
            f"awaiting a moderator: d2 territorio list",
        }.get(d["decisao"], d["decisao"])
        linhas.append(f"    {d['nome']}: {detalhe}")
    metodos = report["resolvidos_por_metodo"]
    if report["enderecos_sem_nominatim"] is None:
        linhas.append(
            f"  address-only demands: {report['enderecos']}; resolutions by method (whole "
            "database): " + ", ".join(f"{k} {v}" for k, v in sorted(metodos.items()))
        )
    else:
        linhas.append(f"  address demands skipped: {report['enderecos_sem_nominatim']}")
    linhas += [
        f"  consumer lag:         {report['lag']}",
        "",
        "Look closer:",
        '  psql "$(.venv/bin/d2 db url)"',
        "    SELECT * FROM d2.v_resolucoes LIMIT 10;",
        "    SELECT * FROM d2.v_revisoes_pendentes;",
        "    SELECT * FROM d2.v_consumer_lag;",
        "    SELECT metodo_resolucao, confianca_geo, endereco_original, endereco_geocodificado"
        " FROM d2.resolucoes_geo WHERE metodo_resolucao <> 'gps';",
        "    SELECT precisao, passo, endereco_entendido, consultas FROM d2.v_geocodificacoes;",
        "    SELECT * FROM d2.resolver_territorio({}, {});".format(*report["exemplo"]),
        "  .venv/bin/d2 dlq list",
    ]
    return "\n".join(linhas)


def cmd_demo(args: argparse.Namespace) -> int:
    logs.configure("INFO" if args.verbose else "CRITICAL")
    emitir(args, executar(database_url.url(), args.events), formatar)
    return 0


def registrar(sub: Any) -> None:
    p_demo = comando(
        sub,
        "demo",
        cmd_demo,
        json_flag=True,
        help="load the sample territory, publish sample demands, run the worker, summarise",
    )
    flag(
        p_demo,
        "--events",
        "--eventos",
        type=positivo,
        default=300,
        help="how many demands (default 300)",
    )
    p_demo.add_argument("--verbose", action="store_true", help="show the worker's JSON logs")
