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
SELECT 'trigram index core.uc_polygons_nome_busca_trgm_idx',
       to_regclass('core.uc_polygons_nome_busca_trgm_idx') IS NOT NULL
UNION ALL
SELECT 'function d2.resolver_territorio(double precision, double precision)',
       to_regprocedure('d2.resolver_territorio(double precision, double precision)') IS NOT NULL
UNION ALL
SELECT 'function d2.resolver_territorios(double precision[], double precision[])',
       to_regprocedure('d2.resolver_territorios(double precision[], double precision[])') IS NOT NULL
UNION ALL
SELECT 'GIST index d2.mirror_pieces_geom_idx', to_regclass('d2.mirror_pieces_geom_idx') IS NOT NULL
UNION ALL
SELECT 'mirror trigger on core.uc_polygons',
       EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'uc_polygons_mirror_row')
UNION ALL
SELECT 'mirror covers core.uc_polygons',
       (SELECT count(*) FROM core.uc_polygons)
       = (SELECT count(*) FROM d2.mirror_uc) + (SELECT count(*) FROM d2.mirror_rejected);
