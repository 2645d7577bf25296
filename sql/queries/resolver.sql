-- name: resolve_one
-- The smallest UC containing one point, and its chain (zero rows: outside everything).
-- The ids come as text (see geo.Resolucao).
SELECT unidade_civica_id::text AS unidade_civica_id, nivel_minimo_resolvido,
       cadeia_ucs::text[] AS cadeia_ucs
FROM d2.resolver_territorio(%(lat)s, %(lng)s);

-- name: resolve_many
-- The set-based form: one row per resolved point, tagged with its 1-based position.
-- The chain comes as one comma-separated text: Python splits it in a single call, where
-- reading a text[] costs ~2.5 µs more per point.
SELECT ordem, unidade_civica_id::text AS unidade_civica_id, nivel_minimo_resolvido,
       array_to_string(cadeia_ucs, ',') AS cadeia_ucs
-- The coordinates travel as binary float8 arrays: as text, each float is printed by
-- Python and parsed by PostgreSQL, ~3.5 µs per point of a batch in all.
FROM d2.resolver_territorios(%(lats)b::double precision[], %(lngs)b::double precision[]);

-- name: resolve_near
-- The near rule for points no polygon holds (d2.resolver_proximos): one row per point it
-- answers, tagged with its 1-based position, the chain as in resolve_many.
SELECT ordem, unidade_civica_id::text AS unidade_civica_id, nivel_minimo_resolvido,
       array_to_string(cadeia_ucs, ',') AS cadeia_ucs, distancia_m
FROM d2.resolver_proximos(%(lats)b::double precision[], %(lngs)b::double precision[],
                          %(limite)s::double precision, %(margem)s::double precision);

-- name: uc_names
-- Names and levels of some UCs (for people reading a resolution).
SELECT DISTINCT ON (unidade_civica_id) unidade_civica_id, nome, nivel
FROM core.uc_polygons
WHERE unidade_civica_id = ANY(%(ids)s::uuid[])
ORDER BY unidade_civica_id, id;

-- name: mirror_rebuild
-- Rebuild the whole mirror; one row per outcome.
SELECT estado, quantidade FROM d2.mirror_rebuild();

-- name: mirror_version
-- The mirror's version: changes whenever core.uc_polygons changes.
SELECT versao FROM d2.mirror_state;
