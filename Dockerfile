# The D-2 worker image (used by docker-compose.yml). PostGIS runs in its own container.
# Installs exactly what CI tested: every version pinned in requirements.lock, each file
# checked against its sha256 (--require-hashes), nothing resolved at build time
# (--no-deps), then d2 itself without dependencies, then pip check
# (fails when the lock misses one). NOT built by the project (no Docker engine where it is
# developed): tests/unit/test_docker.py reads this file and checks these properties.
FROM python:3.11-slim
WORKDIR /app
COPY requirements.lock pyproject.toml README.md ./
COPY d2 ./d2
COPY sql ./sql
COPY alembic ./alembic
# nominatim-db needs PyICU, which PyPI ships as source only: built against the system's ICU.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu-dev pkg-config g++ \
    && pip install --no-cache-dir --no-deps --require-hashes -r requirements.lock \
    && pip install --no-cache-dir --no-deps . \
    && pip check \
    && apt-get purge -y --auto-remove g++ pkg-config \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --no-create-home d2
USER d2
ENTRYPOINT ["d2"]
CMD ["worker"]
