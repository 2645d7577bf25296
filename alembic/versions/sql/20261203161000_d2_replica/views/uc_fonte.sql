-- The polygons the mirror is built from: core.uc_polygons, or the event-synced replica
-- d2.replica_uc, as d2.mirror_fonte() says. Every mirror function (d2.mirror_sync,
-- d2.mirror_aplicar, d2.mirror_rebuild, the chains and d2.cadeia_ucs) reads this view
-- and nothing else, so both sources go through one apply path: same repair, same
-- subdivision, same chains, same clean intervals, same re-georeferencing follow-up.
-- d2.mirror_fonte() names no column: each branch's condition is a one-time filter, and
-- the branch not chosen is never scanned.
CREATE OR REPLACE VIEW d2.uc_fonte AS
SELECT u.id, u.unidade_civica_id, u.nivel, u.nome, u.geometria, u.parent_uc_id, u.fonte
FROM core.uc_polygons u
WHERE d2.mirror_fonte() = 'core'
UNION ALL
SELECT r.id, r.unidade_civica_id, r.nivel, r.nome, r.geometria, r.parent_uc_id, r.fonte
FROM d2.replica_uc r
WHERE d2.mirror_fonte() = 'eventos';
