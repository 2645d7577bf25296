"""Definer and trigger functions that no planted overload can hijack.

The functions that run with D-2's privileges (SECURITY DEFINER, and the triggers that run
inside them) resolved names through `public`, where PostGIS lives. A role allowed to
CREATE there could plant e.g. public.st_makeenvelope(integer, double precision, integer,
double precision, integer), a better match for a call with integer literals, or
public.unnest(uuid[]), a better match than pg_catalog's polymorphic unnest(anyarray), and
have it run as the owner on the next import. Now:

* the migrations refuse to run where such a schema is writable by other roles
  (d2/migrations.py);
* calls in those functions match an existing function exactly: typed literals for
  PostGIS, pg_catalog-qualified polymorphic functions (unnest, array_agg, cardinality,
  array_append), explicit box3d casts. Re-applied here from sql/functions/, same meaning;
* core.uc_polygons_nome_busca casts nome to text, so unaccent(text) and lower(text)
  match exactly (a public.lower(varchar) would have won over pg_catalog.lower(text));
* sql/grants.sql, re-applied at head after every upgrade, pins search_path
  (pg_catalog, <postgis schema>, pg_temp) and revokes EXECUTE from PUBLIC; this
  migration makes functions created later in d2 start without PUBLIC EXECUTE.

Downgrade puts back the old search_path and PUBLIC's EXECUTE (the previous state).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203120000_definer_search_path"
down_revision = "20261203110000_uc_polygons_captura"
branch_labels = None
depends_on = None

FILES = (
    "functions/cadeia_ucs.sql",
    "functions/faixas_tocadas.sql",
    "functions/mirror_cadeias_atualizar.sql",
    "functions/mirror_faixas_invalidar.sql",
    "functions/mirror_faixas_construir.sql",
)

NOME_BUSCA = r"""
CREATE OR REPLACE FUNCTION core.uc_polygons_nome_busca()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    NEW.nome_busca := left(btrim(regexp_replace(
        regexp_replace(
            regexp_replace(lower(unaccent(NEW.nome::text)), '[''`´’]'::text, ''::text,
                           'g'::text),
            '[^a-z0-9]+'::text, ' '::text, 'g'::text),
        '\s+'::text, ' '::text, 'g'::text)), 255);
    RETURN NEW;
END
$$;
"""

NOME_BUSCA_ANTES = r"""
CREATE OR REPLACE FUNCTION core.uc_polygons_nome_busca()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    NEW.nome_busca := left(btrim(regexp_replace(
        regexp_replace(
            regexp_replace(lower(unaccent(NEW.nome)), '[''`´’]', '', 'g'),
            '[^a-z0-9]+', ' ', 'g'),
        '\s+', ' ', 'g')), 255);
    RETURN NEW;
END
$$;
"""


def upgrade() -> None:
    for name in FILES:
        migrations.apply_frozen(op, revision, name)
    migrations.execute_sql(
        op,
        NOME_BUSCA
        + """
        ALTER DEFAULT PRIVILEGES IN SCHEMA d2 REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        NOME_BUSCA_ANTES
        + """
        ALTER DEFAULT PRIVILEGES IN SCHEMA d2 GRANT EXECUTE ON FUNCTIONS TO PUBLIC;
        GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA d2 TO PUBLIC;
        DO $$
        DECLARE
            funcao regprocedure;
        BEGIN
            FOR funcao IN
                SELECT p.oid::regprocedure
                FROM pg_proc p
                JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE p.proowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
                  AND p.prokind = 'f'
                  AND (p.prosecdef OR p.prorettype = 'trigger'::regtype)
                  AND p.proconfig IS NOT NULL
                  AND (n.nspname = 'd2'
                       OR (n.nspname = 'core'
                           AND p.proname IN ('event_log_numerar', 'event_log_proteger_sequencia',
                                             'event_log_inserir_numerados',
                                             'uc_polygons_nome_busca')))
            LOOP
                EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, public', funcao);
                EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', funcao);
            END LOOP;
        END
        $$;
        """,
    )
