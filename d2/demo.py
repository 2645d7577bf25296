"""The demo of the README's first command: a sample territory, a few hundred events
(good and bad) through the real worker, and a summary of where everything ended."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from d2 import bus, config, db, service, worker
from d2.importers import sample


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


def executar(n: int = 300) -> dict[str, Any]:
    """Load the sample, publish n demands like D-1b does, drain them, summarise."""
    settings = config.load()
    url = db.database_url(settings)
    importacao = sample.load_sample(url)
    with db.connect(url, autocommit=True) as conn:
        with conn.transaction():
            # A fresh start for the demo's consumer: replay what we publish now.
            inicio = bus.maior_sequencia(conn, service.TIPO_ENTRADA)
            conn.execute(db.q("cursor_seed"), {"tipo": service.TIPO_ENTRADA, "seq": inicio})
            for payload, versao in eventos_de_exemplo(n):
                conn.execute(
                    db.q("demo_publish_upstream"),
                    {
                        "event_id": uuid.uuid4(),
                        "versao": versao,
                        "payload": json.dumps(payload),
                    },
                )
    resultado = worker.Worker(settings, url=url).executar(drain=True)
    with db.connect(url) as conn:
        por_nivel = conn.execute(db.q("demo_resolved_by_level")).fetchall()
        lag = conn.execute(db.q("demo_lag")).fetchone()
        exemplo = conn.execute(db.q("demo_example_point")).fetchone()
    return {
        "territorio": importacao.total().read,
        "eventos": sum(resultado.contagem.values()),
        "desfechos": dict(resultado.contagem),
        "resolvidos_por_nivel": {str(r["nivel"]): r["n"] for r in por_nivel},
        "lag": lag["lag"] if lag else None,
        "exemplo": (exemplo["lat"], exemplo["lng"]) if exemplo else (-10.0, -50.0),
        "database_url": url,
    }


def formatar(report: dict[str, Any]) -> str:
    """The demo's summary for a person."""
    desfechos = report["desfechos"]
    linhas = [
        "D-2 demo",
        f"  sample UC polygons:   {report['territorio']}",
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
        "coordenadas_invalidas": "discarded: invalid coordinates",
        "revisao_pendente": "pending manual review",
        "dead_letter": "dead letters",
    }
    for chave, nome in nomes.items():
        linhas.append(f"  {nome + ':':29} {desfechos.get(chave, 0)}")
    linhas += [
        f"  consumer lag:         {report['lag']}",
        "",
        "Look closer:",
        '  psql "$(.venv/bin/d2 db url)"',
        "    SELECT * FROM d2.v_resolucoes LIMIT 10;",
        "    SELECT * FROM d2.v_revisoes_pendentes;",
        "    SELECT * FROM d2.v_consumer_lag;",
        "    SELECT * FROM d2.resolver_territorio({}, {});".format(*report["exemplo"]),
        "  .venv/bin/d2 dlq list",
    ]
    return "\n".join(linhas)
