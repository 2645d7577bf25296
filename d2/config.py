"""Configuration, read from the environment in one place (DATABASE_URL, D2_*)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from d2 import errors


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise errors.ConfigError(f"{name} must be an integer, got {raw!r}") from None


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise errors.ConfigError(f"{name} must be a number, got {raw!r}") from None


def _ligado(name: str) -> bool:
    """on (the default) or off."""
    raw = (os.environ.get(name) or "on").strip().lower()
    if raw in ("on", "1", "true", "yes"):
        return True
    if raw in ("off", "0", "false", "no"):
        return False
    raise errors.ConfigError(f"{name} must be on or off, got {raw!r}")


def _nominatim() -> bool:
    """D2_NOMINATIM: auto (the default; on is the same) or off."""
    raw = (os.environ.get("D2_NOMINATIM") or "auto").strip().lower()
    if raw in ("auto", "on"):
        return True
    if raw == "off":
        return False
    raise errors.ConfigError(f"D2_NOMINATIM must be auto or off, got {raw!r}")


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    home: Path
    batch_size: int
    poll_interval_s: float
    cache_max_entries: int
    cache_ttl_s: int
    metrics_port: int
    max_payload_bytes: int
    max_payload_depth: int
    standby_max_s: float = 0.0
    territorio_alerta_a_cada: int = 5
    max_batch_bytes: int = 16 * 1024 * 1024
    # Loopback: the endpoints say how the worker is doing to whoever can reach them.
    metrics_host: str = "127.0.0.1"
    # The OSM importer holds the whole (decompressed) GeoJSON: a bound against bombs.
    osm_max_bytes: int = 1 << 30
    # Textual addresses (docs/geocoding.md). Off: address demands are discarded as in the MVP.
    geocoder_ativo: bool = True
    # D2_NOMINATIM=off: no Nominatim at all (a small deployment may never run one); the
    # address path then answers from places and CEPs alone. auto (the default): the one
    # configured, else the default database if it exists (d2.geocoder.nominatim.client).
    nominatim_ativo: bool = True
    nominatim_url: str | None = None  # an existing Nominatim server (HTTP mode)
    nominatim_dsn: str | None = None  # its database (in-process mode); None: derived
    geocoder_timeout_s: float = 5.0
    geocoder_concorrencia: int = 2
    geocoder_batch: int = 200
    geocoder_espera_max_s: float = 300.0
    geocoder_cache_max: int = 50_000
    geocoder_cache_ttl_s: int = 24 * 3600
    # Tries the geocoder may fail one address while answering, so one address it keeps
    # failing cannot cost every round a timeout.
    geocoder_tentativas_max: int = 5
    nominatim_web_user: str = "www-data"  # Nominatim's NOMINATIM_DATABASE_WEBUSER
    # uc.poligono_* carry a polygon's whole GeoJSON (a big município is several MB).
    max_payload_bytes_uc: int = 64 * 1024 * 1024
    # How long a command that answers from the mirror may spend bringing it up to date
    # (waiting for the appliers' lock, applying, following up stored answers).
    sync_timeout_s: float = 30.0
    # statement_timeout of the geometry stage's connection (drawings, replica, mirror,
    # follow-up): a bound on top of the caps of the geometry functions.
    territorio_timeout_s: float = 30.0
    # Who may publish what D-2 consumes (docs/design.md, decision 11): any colony can write
    # core.event_log under any origem, so these lists are a first filter, not a proof.
    # (The replica's origins, bounds and breaker are not settings: they live in
    # d2.replica_limites, which only the owner writes, so a worker's login cannot change
    # them.)
    demanda_origens: tuple[str, ...] = ("D-1b",)
    # The longest D-2 waits for a lock another session holds (the mirror's appliers' and
    # interval builder's, the tables a rebuild truncates): `d2 mirror sync --wait`,
    # `d2 mirror rebuild`, the importers. Past it: one line naming who holds it.
    lock_timeout_s: float = 120.0
    # /healthz turns 503, naming the session, when committed demands have been held back
    # by the event log's fence (an open transaction with an id anywhere in the cluster)
    # for longer than this, or when the worker could not apply waiting changes of
    # core.uc_polygons for longer than that (another session holding the appliers'
    # lock, or the apply failing). 0: off.
    fence_max_s: float = 300.0
    mirror_max_s: float = 300.0
    # The near rule (docs/design.md, decision 12): a point in no polygon within this many
    # metres of exactly one município, and no other within this plus the margin, is
    # answered there. The distance covers a phone's GPS error and the mesh's drawing
    # error; the margin keeps water narrower than both together (a river, a channel, a
    # bay's mouth) for a person. docs/design.md says how both were measured. 0: off.
    revisao_distancia_m: float = 100.0
    revisao_margem_m: float = 500.0


def _lista(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    itens = tuple(dict.fromkeys(i.strip() for i in raw.split(",") if i.strip()))
    if not itens:
        raise errors.ConfigError(f"{name} must list at least one origem, got {raw!r}")
    return itens


_REPLICA_ANTIGAS = ("D2_REPLICA_ORIGENS", "D2_REPLICA_BREAKER_MAX", "D2_REPLICA_BREAKER_WINDOW")


def _sem_variaveis_da_replica() -> None:
    """Refuse the replica's former settings: silently ignored, an operator's limit would
    not be the one in force."""
    for antiga in _REPLICA_ANTIGAS:
        if antiga in os.environ:
            raise errors.ConfigError(
                f"{antiga} is no longer read: the replica's origins and breaker are in "
                "d2.replica_limites (UPDATE it as the database owner; docs/mirror.md)"
            )


def _sem_texto_livre() -> None:
    """D2_GEOCODER_LADDER=off asked for the free-text path, which is gone: refused, so a
    deployment that chose it learns that its addresses are now read down the ladder."""
    if not _ligado("D2_GEOCODER_LADDER"):
        raise errors.ConfigError(
            "D2_GEOCODER_LADDER=off is no longer available: addresses are read one way, down "
            "the ladder (docs/geocoding.md); unset D2_GEOCODER_LADDER"
        )


def _regra_perto(settings: Settings) -> None:
    """The near rule's work per point is bounded by its reach (d2.resolver_proximo)."""
    for nome, valor in (
        ("D2_REVISAO_DISTANCIA_M", settings.revisao_distancia_m),
        ("D2_REVISAO_MARGEM_M", settings.revisao_margem_m),
    ):
        if not 0 <= valor <= 1000:
            raise errors.ConfigError(f"{nome} must be between 0 and 1000 metres, got {valor:g}")


def load() -> Settings:
    """Read the settings; raises errors.ConfigError on a malformed value."""
    settings = Settings(
        database_url=os.environ.get("DATABASE_URL") or None,
        home=Path(os.environ.get("D2_HOME", ".d2")).absolute(),
        batch_size=_int("D2_BATCH_SIZE", 500),
        poll_interval_s=_float("D2_POLL_INTERVAL", 1.0),
        cache_max_entries=_int("D2_CACHE_MAX_ENTRIES", 100_000),
        cache_ttl_s=_int("D2_CACHE_TTL", 30 * 24 * 3600),
        metrics_port=_int("D2_METRICS_PORT", 0),
        metrics_host=os.environ.get("D2_METRICS_HOST") or "127.0.0.1",
        osm_max_bytes=_int("D2_OSM_MAX_BYTES", 1 << 30),
        max_payload_bytes=_int("D2_MAX_PAYLOAD_BYTES", 256 * 1024),
        max_payload_depth=_int("D2_MAX_PAYLOAD_DEPTH", 32),
        # 0: a standby may wait forever (several workers on purpose); set it where one
        # worker should be leading, and /healthz turns 503 past it.
        standby_max_s=_float("D2_STANDBY_MAX_SECONDS", 0.0),
        territorio_alerta_a_cada=_int("D2_TERRITORIO_ALERTA_A_CADA", 5),
        max_batch_bytes=_int("D2_MAX_BATCH_BYTES", 16 * 1024 * 1024),
        max_payload_bytes_uc=_int("D2_MAX_PAYLOAD_BYTES_UC", 64 * 1024 * 1024),
        geocoder_ativo=os.environ.get("D2_GEOCODER", "on").lower() not in ("off", "0", "false"),
        nominatim_ativo=_nominatim(),
        nominatim_url=os.environ.get("D2_NOMINATIM_URL") or None,
        nominatim_dsn=os.environ.get("D2_NOMINATIM_DSN") or None,
        geocoder_timeout_s=_float("D2_GEOCODER_TIMEOUT", 5.0),
        geocoder_concorrencia=_int("D2_GEOCODER_CONCURRENCY", 2),
        geocoder_batch=_int("D2_GEOCODER_BATCH", 200),
        geocoder_espera_max_s=_float("D2_GEOCODER_RETRY_MAX", 300.0),
        geocoder_cache_max=_int("D2_GEOCODER_CACHE_MAX_ENTRIES", 50_000),
        geocoder_cache_ttl_s=_int("D2_GEOCODER_CACHE_TTL", 24 * 3600),
        geocoder_tentativas_max=_int("D2_GEOCODER_TRIES_MAX", 5),
        nominatim_web_user=os.environ.get("NOMINATIM_DATABASE_WEBUSER") or "www-data",
        sync_timeout_s=_float("D2_SYNC_TIMEOUT", 30.0),
        territorio_timeout_s=_float("D2_TERRITORIO_TIMEOUT", 30.0),
        demanda_origens=_lista("D2_DEMANDA_ORIGENS", ("D-1b",)),
        lock_timeout_s=_float("D2_LOCK_TIMEOUT", 120.0),
        fence_max_s=_float("D2_FENCE_MAX_SECONDS", 300.0),
        mirror_max_s=_float("D2_MIRROR_MAX_SECONDS", 300.0),
        revisao_distancia_m=_float("D2_REVISAO_DISTANCIA_M", 100.0),
        revisao_margem_m=_float("D2_REVISAO_MARGEM_M", 500.0),
    )
    if settings.batch_size < 1:
        raise errors.ConfigError("D2_BATCH_SIZE must be at least 1")
    if settings.poll_interval_s <= 0:
        raise errors.ConfigError("D2_POLL_INTERVAL must be positive")
    if settings.standby_max_s < 0:
        raise errors.ConfigError("D2_STANDBY_MAX_SECONDS must not be negative")
    if settings.osm_max_bytes < 1:
        raise errors.ConfigError("D2_OSM_MAX_BYTES must be at least 1")
    if settings.geocoder_timeout_s <= 0:
        raise errors.ConfigError("D2_GEOCODER_TIMEOUT must be positive")
    if settings.geocoder_concorrencia < 1 or settings.geocoder_batch < 1:
        raise errors.ConfigError("D2_GEOCODER_CONCURRENCY and D2_GEOCODER_BATCH must be at least 1")
    if settings.geocoder_tentativas_max < 1:
        raise errors.ConfigError("D2_GEOCODER_TRIES_MAX must be at least 1")
    if settings.cache_max_entries < 0:
        raise errors.ConfigError("D2_CACHE_MAX_ENTRIES must not be negative")
    if settings.territorio_timeout_s <= 0:
        raise errors.ConfigError("D2_TERRITORIO_TIMEOUT must be positive")
    if settings.sync_timeout_s <= 0:
        raise errors.ConfigError("D2_SYNC_TIMEOUT must be positive")
    _sem_variaveis_da_replica()
    _sem_texto_livre()
    if settings.lock_timeout_s <= 0:
        raise errors.ConfigError("D2_LOCK_TIMEOUT must be positive")
    if settings.fence_max_s < 0 or settings.mirror_max_s < 0:
        raise errors.ConfigError(
            "D2_FENCE_MAX_SECONDS and D2_MIRROR_MAX_SECONDS must not be negative (0: off)"
        )
    _regra_perto(settings)
    if settings.territorio_alerta_a_cada < 0:
        raise errors.ConfigError("D2_TERRITORIO_ALERTA_A_CADA must not be negative (0: no alerts)")
    return settings
