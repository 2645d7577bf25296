# The D-2 worker image (used by docker-compose.yml). PostGIS runs in its own container.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY d2 ./d2
COPY sql ./sql
COPY alembic ./alembic
RUN pip install --no-cache-dir . && useradd --system --no-create-home d2
USER d2
ENTRYPOINT ["d2"]
CMD ["worker"]
