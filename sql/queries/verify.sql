-- name: verify_checks
-- One row per structural check of `d2 db verify`.
SELECT 'extension postgis' AS check,
       EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis') AS ok
UNION ALL
SELECT 'extension unaccent', EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent')
UNION ALL
SELECT 'extension pg_trgm', EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')
UNION ALL
SELECT 'function d2.candidatos_territorio(integer[], integer[], text[])',
       to_regprocedure('d2.candidatos_territorio(integer[], integer[], text[])') IS NOT NULL
UNION ALL
SELECT 'function d2.resolver_territorio(double precision, double precision)',
       to_regprocedure('d2.resolver_territorio(double precision, double precision)') IS NOT NULL
UNION ALL
SELECT 'function d2.resolver_territorios(double precision[], double precision[])',
       to_regprocedure('d2.resolver_territorios(double precision[], double precision[])') IS NOT NULL
UNION ALL
SELECT 'GIST index d2.mirror_pieces_geom_idx', to_regclass('d2.mirror_pieces_geom_idx') IS NOT NULL
UNION ALL
SELECT 'change capture triggers on core.uc_polygons',
       (SELECT count(*) FROM pg_trigger
        WHERE tgrelid = 'core.uc_polygons'::regclass AND tgname LIKE 'uc_polygons_capturar_%') = 4
UNION ALL
-- While changes wait for the applier (the worker, `d2 mirror sync`) the counts may differ.
SELECT 'mirror covers core.uc_polygons (or changes wait to be applied)',
       EXISTS (SELECT 1 FROM d2.mirror_mudancas)
       OR (SELECT count(*) FROM core.uc_polygons)
          = (SELECT count(*) FROM d2.mirror_uc) + (SELECT count(*) FROM d2.mirror_rejected);

-- name: footprint_catalog
-- What lies outside schema d2 where D-2 puts things, as (kind, name) rows that
-- d2/verify.py compares with d2/footprint.py: the tables D-2 may create in core and
-- their indexes, triggers and added columns (beyond the spec's and DESIGN's own columns);
-- every function and sequence in core; any trigger outside d2 that calls a function of
-- d2; public tables named d2_*. Extension members are left out (PostGIS's own).
WITH alvo (tabela, base) AS (
    VALUES
        ('uc_polygons', ARRAY['id', 'unidade_civica_id', 'nivel', 'parent_uc_id', 'nome',
                              'geometria', 'criado_em', 'atualizado_em']),
        ('event_log', ARRAY['sequence_number', 'event_id', 'tipo', 'versao_schema', 'origem',
                            'correlacao_id', 'payload', 'publicado_em']),
        ('dead_letter_queue', NULL)
),
tabelas AS (
    SELECT c.oid, c.relname, a.base
    FROM alvo a
    JOIN pg_class c ON c.relname = a.tabela AND c.relnamespace = 'core'::regnamespace
),
de_extensao AS (
    SELECT d.objid FROM pg_depend d WHERE d.deptype = 'e'
)
SELECT 'table' AS kind, format('core.%s', t.relname) AS name FROM tabelas t
UNION ALL
SELECT 'table', format('public.%s', c.relname)
FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
  AND c.relname LIKE 'd2\_%'
UNION ALL
SELECT 'column', format('core.%s.%s', t.relname, a.attname)
FROM tabelas t
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE t.base IS NOT NULL AND NOT a.attname = ANY (t.base)
UNION ALL
SELECT 'index', format('core.%s.%s', t.relname, i.relname)
FROM tabelas t
JOIN pg_index x ON x.indrelid = t.oid
JOIN pg_class i ON i.oid = x.indexrelid
UNION ALL
SELECT 'trigger', format('core.%s.%s', t.relname, g.tgname)
FROM tabelas t
JOIN pg_trigger g ON g.tgrelid = t.oid AND NOT g.tgisinternal
UNION ALL
SELECT 'trigger', format('%s.%s.%s', n.nspname, c.relname, g.tgname)
FROM pg_trigger g
JOIN pg_proc p ON p.oid = g.tgfoid
JOIN pg_class c ON c.oid = g.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE NOT g.tgisinternal AND p.pronamespace = 'd2'::regnamespace
  AND n.nspname <> 'd2' AND c.oid NOT IN (SELECT oid FROM tabelas)
UNION ALL
SELECT 'function', format('core.%s', replace(p.oid::regprocedure::text, 'core.', ''))
FROM pg_proc p
WHERE p.pronamespace = 'core'::regnamespace AND p.oid NOT IN (SELECT objid FROM de_extensao)
UNION ALL
SELECT 'sequence', format('core.%s', c.relname)
FROM pg_class c
WHERE c.relnamespace = 'core'::regnamespace AND c.relkind = 'S'
  -- The serial of a column of the spec's or DESIGN's own (the monolith's) is not D-2's.
  AND NOT EXISTS (
      SELECT 1
      FROM pg_depend d
      JOIN tabelas t ON t.oid = d.refobjid
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
      WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')
        AND a.attname = ANY (t.base)
  )
ORDER BY 1, 2;

-- name: verify_role
-- Whether the connected role can see what d2 db verify reads: the migration state
-- (owned by the migrating role; d2_worker has no reason to read it).
SELECT current_user AS papel,
       to_regclass('public.d2_alembic_version') IS NULL
       OR has_table_privilege('public.d2_alembic_version', 'SELECT') AS ok;
