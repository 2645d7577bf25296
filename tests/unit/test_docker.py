"""docker-compose and the Dockerfile, read as files. No Docker engine
runs where D-2 is developed, so these checks hold the files to their properties, not a
running stack: no password has a default (a forgotten variable fails `docker compose up`
instead of starting a superuser with a password printed in this repository), passwords
never sit inside a URL, ports are published on the host's loopback only, the image
installs exactly requirements.lock, and the worker has a healthcheck on /healthz."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML not installed (pip install -r requirements.lock)")

RAIZ = Path(__file__).resolve().parents[2]
COMPOSES = ("docker-compose.yml", "docker-compose.nominatim.yml")
# ${VAR:?message}: Compose refuses to start when VAR is unset or empty.
EXIGIDA = re.compile(r"\$\{(?P<var>[A-Z0-9_]+):\?[^}]+\}")
LOOPBACK = ("127.0.0.1", "[::1]", "::1")


def _services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = {}
    for nome in COMPOSES:
        services |= yaml.safe_load((RAIZ / nome).read_text(encoding="utf-8"))["services"]
    return services


def _ambiente(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def test_compose__every_password_is_required_never_defaulted() -> None:
    senhas = {
        (service, chave): valor
        for service, definicao in _services().items()
        for chave, valor in _ambiente(definicao).items()
        if "PASSWORD" in chave
    }
    assert {c for _, c in senhas} >= {"POSTGRES_PASSWORD", "PGPASSWORD", "NOMINATIM_PASSWORD"}
    for (service, chave), valor in senhas.items():
        assert EXIGIDA.fullmatch(valor), f"{service}.{chave} = {valor!r}: use ${{VAR:?…}}"
    for nome in COMPOSES:
        texto = (RAIZ / nome).read_text(encoding="utf-8")
        # No fallback anywhere for a variable holding a password (`:-`, `-`, `:+`, `+`).
        assert not re.search(r"\$\{[A-Z0-9_]*PASSWORD[A-Z0-9_]*:?[-+]", texto), nome
        assert "local-only" not in texto, nome


def test_compose__no_password_inside_a_url() -> None:
    for service, definicao in _services().items():
        for chave, valor in _ambiente(definicao).items():
            # user:password@host: a password would need URL quoting and shows in `ps`.
            assert not re.search(r"://[^/@\s]+:[^/@\s]+@", valor), f"{service}.{chave}"


def test_compose__ports_only_on_the_host_loopback() -> None:
    publicadas = 0
    for service, definicao in _services().items():
        for porta in definicao.get("ports") or []:
            publicadas += 1
            if isinstance(porta, dict):  # long syntax
                host = str(porta.get("host_ip", ""))
            else:  # "host_ip:published:target"; without host_ip it binds 0.0.0.0
                partes = str(porta).rsplit(":", 2)
                host = partes[0] if len(partes) == 3 else ""
            assert host in LOOPBACK, f"{service} publishes {porta!r} beyond the loopback"
    assert publicadas >= 1


def test_compose__the_worker_has_a_healthcheck_on_its_metrics_port() -> None:
    worker = _services()["worker"]
    porta = _ambiente(worker).get("D2_METRICS_PORT", "")
    assert porta.isdigit() and int(porta) > 0, "the worker serves /healthz on D2_METRICS_PORT"
    health = worker.get("healthcheck") or {}
    teste = health.get("test")
    assert isinstance(teste, list) and teste[0] in ("CMD", "CMD-SHELL"), health
    comando = " ".join(teste[1:])
    assert "/healthz" in comando
    assert "D2_METRICS_PORT" in comando or f":{porta}/" in comando
    assert health.get("start_period") and health.get("interval") and health.get("retries")


def test_compose__the_worker_logs_in_holding_only_d2_worker() -> None:
    """The owner migrates; the worker's login is another one, made a member of d2_worker
    and of nothing else, by a service that runs once the migrations are in."""
    services = _services()
    url = _ambiente(services["worker"])["DATABASE_URL"]
    usuario = url.split("://", 1)[1].split("@", 1)[0]
    assert usuario == "d2_worker_app"
    comandos = {n: " ".join(s.get("command") or []) for n, s in services.items()}
    [nome] = [n for n, c in comandos.items() if f"CREATE ROLE {usuario} LOGIN" in c]
    assert f"CREATE ROLE {usuario} LOGIN IN ROLE d2_worker'" in comandos[nome]
    assert "migrate" in (services[nome].get("depends_on") or {})


def _instrucoes() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined, comments dropped)."""
    linhas: list[str] = []
    atual = ""
    for linha in (RAIZ / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if not atual and (not linha.strip() or linha.lstrip().startswith("#")):
            continue
        atual += linha.rstrip().removesuffix("\\") + " "
        if not linha.rstrip().endswith("\\"):
            linhas.append(atual.strip())
            atual = ""
    return [(i.split(None, 1)[0].upper(), i.split(None, 1)[1]) for i in linhas]


def test_dockerfile__installs_exactly_requirements_lock_then_d2_without_dependencies() -> None:
    instrucoes = _instrucoes()
    copias = " ".join(a for i, a in instrucoes if i == "COPY")
    assert "requirements.lock" in copias
    passos = [
        p.strip() for i, a in instrucoes if i == "RUN" for p in re.split(r"&&|;", a) if p.strip()
    ]
    pips = [shlex.split(p) for p in passos if re.match(r"(python3? -m )?pip3? install\b", p)]
    do_lock = [p for p in pips if "requirements.lock" in p]
    assert do_lock, "the image installs requirements.lock"
    assert all("--no-deps" in p or "--require-hashes" in p for p in do_lock)
    # Every other install is d2 itself, with nothing resolved around the lock.
    for p in pips:
        if p not in do_lock:
            assert "--no-deps" in p and p[-1] == ".", p
    assert any(re.match(r"pip3? check$", p) for p in passos)
    assert passos.index(next(p for p in passos if "requirements.lock" in p)) < passos.index(
        next(p for p in passos if re.match(r"pip3? check$", p))
    )


def test_dockerfile__runs_as_an_unprivileged_user() -> None:
    instrucoes = _instrucoes()
    usuarios = [a for i, a in instrucoes if i == "USER"]
    assert usuarios and usuarios[-1] not in ("root", "0")
    assert [i for i, _ in instrucoes].index("USER") < [i for i, _ in instrucoes].index("ENTRYPOINT")
