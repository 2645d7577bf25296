"""Drawings that cannot pin the database nor take territory without a moderator
(docs/reliability.md, section 6):

- d2.territorio_validar: cheap checks first (vertex cap, closed rings, a município's box
  by index), repair only below d2.territorio_limites.max_vertices_reparo, with
  ST_MakeValid(..., 'method=structure'); d2.mirror_sync the same below
  d2.mirror_state.max_vertices_reparo, rejecting above;
- d2.territorio_tentar / d2.territorio_avaliar(event_id) / d2.territorio_submeter(event_id):
  the definer functions take an event, read it themselves and make the ids (random); the
  evaluation (every geometry operation) runs before any transaction id is taken and
  keeps its verdict in d2.territorio_avaliacoes, whose attempts count survives a crash;
- consensus against each community UC's anchor (d2.territorio_ucs.geom_ancora), scores
  kept incrementally (d2.territorio_submissoes.pontuacao), the parent following the
  canonical geometry; a new drawing that covers official or community UCs of its level,
  is large, or would take many stored answers is 'retida' for a moderator; a daily
  count per author; names cleaned of control and direction characters;
- the resolver and the clean intervals put official polygons before community ones at
  the same level (mirror_uc/mirror_pieces.prioridade), never a drawing's id.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204110000_d2_territorio_seguro"
down_revision = "20261204100000_d2_mirror_aviso"
branch_labels = None
depends_on = None

_ANTES = "20261203150000_d2_territorio_comunitario"

_FUNCOES = (
    "functions/territorio_validar.sql",
    "functions/territorio_candidatas.sql",
    "functions/territorio_tentar.sql",
    "functions/territorio_avaliar.sql",
    "functions/territorio_criar_uc.sql",
    "functions/territorio_canonizar.sql",
    "functions/territorio_pontuar.sql",
    "functions/territorio_submeter.sql",
    "functions/territorio_moderar.sql",
    "functions/mirror_sync.sql",
    "functions/mirror_faixas_construir.sql",
    "functions/resolver_territorio.sql",
)


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.territorio_submeter(
            uuid, uuid, uuid, text, integer, jsonb, uuid, uuid, uuid, integer);
        DROP FUNCTION d2.territorio_avaliar(jsonb, integer);
        DROP FUNCTION d2.territorio_candidatas(geometry, integer);

        ALTER TABLE d2.territorio_limites
            ADD COLUMN max_vertices_reparo INTEGER NOT NULL DEFAULT 100,
            ADD COLUMN area_moderacao_m2 DOUBLE PRECISION NOT NULL DEFAULT 1e6,
            ADD COLUMN sobreposicao_max DOUBLE PRECISION NOT NULL DEFAULT 0.1,
            ADD COLUMN max_resolucoes_tomadas INTEGER NOT NULL DEFAULT 50,
            ADD COLUMN max_por_autor_dia INTEGER NOT NULL DEFAULT 20,
            ADD CONSTRAINT territorio_limites_max_vertices_reparo_check
                CHECK (max_vertices_reparo BETWEEN 0 AND max_vertices),
            ADD CONSTRAINT territorio_limites_sobreposicao_max_check
                CHECK (sobreposicao_max BETWEEN 0 AND 1);
        -- The earlier caps let a drawing carry 5,000 and 20,000 vertices; a hand-drawn
        -- polygon has dozens. Lowered where nobody tuned them.
        UPDATE d2.territorio_limites SET max_vertices = 1000
        WHERE nivel = 1 AND max_vertices = 5000;
        UPDATE d2.territorio_limites SET max_vertices = 2000
        WHERE nivel = 2 AND max_vertices = 20000;
        UPDATE d2.territorio_limites SET area_moderacao_m2 = 2e7 WHERE nivel = 2;

        CREATE TABLE d2.territorio_estado (
            id      BOOLEAN PRIMARY KEY DEFAULT true,
            geracao BIGINT NOT NULL DEFAULT 0,
            CONSTRAINT territorio_estado_id_check CHECK (id)
        );
        INSERT INTO d2.territorio_estado DEFAULT VALUES;

        CREATE TABLE d2.territorio_avaliacoes (
            event_id        UUID PRIMARY KEY,
            tentativas      INTEGER NOT NULL DEFAULT 0,
            decisao         TEXT,
            motivo          TEXT,
            geom            geometry(MultiPolygon, 4326),
            area_m2         DOUBLE PRECISION,
            reparada        BOOLEAN,
            municipio_uc_id UUID,
            parent_uc_id    UUID,
            alvo_uc_id      UUID,
            sobreposicao    DOUBLE PRECISION,
            interseccoes    JSONB,
            nome            TEXT,
            nivel           INTEGER,
            autor_id        UUID,
            lugar_id        UUID,
            geracao         BIGINT,
            avaliada_em     TIMESTAMPTZ
        );

        ALTER TABLE d2.territorio_submissoes
            ADD COLUMN pontuacao DOUBLE PRECISION NOT NULL DEFAULT 0,
            DROP CONSTRAINT territorio_submissoes_decisao_check,
            DROP CONSTRAINT territorio_submissoes_check,
            DROP CONSTRAINT territorio_submissoes_check1,
            ADD CONSTRAINT territorio_submissoes_decisao_check
                CHECK (decisao IN ('nova', 'confirmacao', 'alternativa', 'retida', 'rejeitada')),
            ADD CONSTRAINT territorio_submissoes_check
                CHECK ((decisao IN ('rejeitada', 'retida')) = (motivo IS NOT NULL)),
            ADD CONSTRAINT territorio_submissoes_check1
                CHECK (decisao = 'rejeitada' OR geom IS NOT NULL),
            ADD CONSTRAINT territorio_submissoes_check2
                CHECK (decisao IN ('rejeitada', 'retida') OR alvo_uc_id IS NOT NULL);
        CREATE INDEX territorio_submissoes_autor_idx
            ON d2.territorio_submissoes (autor_id, criado_em);

        ALTER TABLE d2.territorio_ucs ADD COLUMN geom_ancora geometry(MultiPolygon, 4326);
        UPDATE d2.territorio_ucs u
        SET geom_ancora = coalesce(
            (SELECT s.geom FROM d2.territorio_submissoes s
             WHERE s.alvo_uc_id = u.unidade_civica_id AND s.moderacao = 'aceita'
             ORDER BY s.moderado_em DESC, s.id LIMIT 1),
            (SELECT s.geom FROM d2.territorio_submissoes s
             WHERE s.alvo_uc_id = u.unidade_civica_id AND s.decisao = 'nova' LIMIT 1),
            u.geom);
        ALTER TABLE d2.territorio_ucs ALTER COLUMN geom_ancora SET NOT NULL;

        ALTER TABLE d2.mirror_state
            ADD COLUMN max_vertices_reparo INTEGER NOT NULL DEFAULT 200,
            ADD CONSTRAINT mirror_state_max_vertices_reparo_check CHECK (max_vertices_reparo >= 0);
        ALTER TABLE d2.mirror_uc ADD COLUMN prioridade SMALLINT NOT NULL DEFAULT 0;
        ALTER TABLE d2.mirror_pieces ADD COLUMN prioridade SMALLINT NOT NULL DEFAULT 0;
        """,
    )
    for nome in _FUNCOES:
        migrations.apply_frozen(op, revision, nome)
    migrations.execute_sql(
        op,
        """
        -- Community polygons already in the mirror yield to official ones from now on.
        -- SET geom = geom fires the trigger that drops their bands' clean intervals
        -- (rebuilt at the next apply; meanwhile those points take the GIST tiers).
        UPDATE d2.mirror_pieces p SET prioridade = 1
        FROM d2.uc_fonte f WHERE f.id = p.uc_polygon_id AND f.fonte = 'comunitario';
        UPDATE d2.mirror_uc m SET prioridade = 1, geom = m.geom
        FROM d2.uc_fonte f WHERE f.id = m.uc_polygon_id AND f.fonte = 'comunitario';
        SELECT d2.territorio_pontuar(u.unidade_civica_id) FROM d2.territorio_ucs u;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.territorio_submeter(uuid, integer);
        DROP FUNCTION d2.territorio_avaliar(uuid);
        DROP FUNCTION d2.territorio_tentar(uuid);
        DROP FUNCTION d2.territorio_validar(jsonb, integer);
        DROP FUNCTION d2.territorio_criar_uc(uuid, uuid, uuid);
        DROP FUNCTION d2.territorio_pontuar(uuid);
        DROP FUNCTION d2.territorio_candidatas(geometry, integer);
        """,
    )
    for nome in ("territorio_candidatas", "territorio_avaliar", "territorio_canonizar",
                 "territorio_submeter", "territorio_moderar"):  # fmt: skip
        migrations.apply_frozen(op, _ANTES, f"functions/{nome}.sql")
    migrations.apply_frozen(op, "20261203161000_d2_replica", "functions/mirror_sync.sql")
    migrations.apply_frozen(
        op, "20261203120000_definer_search_path", "functions/mirror_faixas_construir.sql"
    )
    migrations.apply_frozen(
        op, "20261204100000_d2_mirror_aviso", "functions/resolver_territorio.sql"
    )
    migrations.execute_sql(
        op,
        """
        UPDATE d2.mirror_uc SET geom = geom WHERE prioridade <> 0;
        ALTER TABLE d2.mirror_pieces DROP COLUMN prioridade;
        ALTER TABLE d2.mirror_uc DROP COLUMN prioridade;
        ALTER TABLE d2.mirror_state
            DROP CONSTRAINT mirror_state_max_vertices_reparo_check,
            DROP COLUMN max_vertices_reparo;
        ALTER TABLE d2.territorio_ucs DROP COLUMN geom_ancora;
        DROP INDEX d2.territorio_submissoes_autor_idx;
        -- A held drawing a moderator accepted made a UC: it reads as a 'nova' before.
        UPDATE d2.territorio_submissoes SET decisao = 'nova', motivo = NULL
        WHERE decisao = 'retida' AND alvo_uc_id IS NOT NULL;
        DELETE FROM d2.territorio_submissoes WHERE decisao = 'retida';
        ALTER TABLE d2.territorio_submissoes
            DROP CONSTRAINT territorio_submissoes_check2,
            DROP CONSTRAINT territorio_submissoes_check1,
            DROP CONSTRAINT territorio_submissoes_check,
            DROP CONSTRAINT territorio_submissoes_decisao_check,
            DROP COLUMN pontuacao,
            ADD CONSTRAINT territorio_submissoes_decisao_check
                CHECK (decisao IN ('nova', 'confirmacao', 'alternativa', 'rejeitada')),
            ADD CONSTRAINT territorio_submissoes_check
                CHECK ((decisao = 'rejeitada') = (motivo IS NOT NULL)),
            ADD CONSTRAINT territorio_submissoes_check1
                CHECK (decisao = 'rejeitada' OR (geom IS NOT NULL AND alvo_uc_id IS NOT NULL));
        DROP TABLE d2.territorio_avaliacoes;
        DROP TABLE d2.territorio_estado;
        UPDATE d2.territorio_limites SET max_vertices = 5000
        WHERE nivel = 1 AND max_vertices = 1000;
        UPDATE d2.territorio_limites SET max_vertices = 20000
        WHERE nivel = 2 AND max_vertices = 2000;
        ALTER TABLE d2.territorio_limites
            DROP CONSTRAINT territorio_limites_sobreposicao_max_check,
            DROP CONSTRAINT territorio_limites_max_vertices_reparo_check,
            DROP COLUMN max_por_autor_dia,
            DROP COLUMN max_resolucoes_tomadas,
            DROP COLUMN sobreposicao_max,
            DROP COLUMN area_moderacao_m2,
            DROP COLUMN max_vertices_reparo;
        """,
    )
