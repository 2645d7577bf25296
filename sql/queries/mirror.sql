-- name: mirror_lock
-- The appliers' lock (sql/tables/mirror_aplicador.sql), right after BEGIN and the
-- isolation level: LOCK TABLE takes no snapshot, so the apply's comes after the lock and
-- sees what the previous applier committed. Released at commit. Only d2_worker and the
-- owner may take it (writers never do).
LOCK TABLE d2.mirror_aplicador IN EXCLUSIVE MODE;

-- name: mirror_try_lock
-- The same without waiting: lock_not_available at once when another applier is at work.
LOCK TABLE d2.mirror_aplicador IN EXCLUSIVE MODE NOWAIT;

-- name: mirror_repeatable_read
-- First statement of an applier's transaction: one snapshot for the changes and polygons.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: mirror_aplicar
-- Applies every recorded change this snapshot sees; moves the version if there was any.
SELECT mudancas, poligonos, versao FROM d2.mirror_aplicar();

-- name: mirror_pending
-- Recorded changes not applied yet (committed ones), and the oldest one's time.
SELECT count(*) AS pendentes, min(registrado_em) AS mais_antiga FROM d2.mirror_mudancas;

-- name: mirror_faixas_construir
-- After an apply's commit: the clean intervals of the bands it touched; how many bands.
SELECT d2.mirror_faixas_construir() AS faixas;

-- name: mirror_index_due
-- Whether the resolver's index is still due to be built again after an apply: the
-- polygons synced since its last build are a tenth of the mirror or more, and the apply
-- found a session holding the index (sql/functions/mirror_aplicar.sql).
SELECT s.sincronizados_desde_indice > 0
       AND s.sincronizados_desde_indice * 10 >= (SELECT count(*) FROM d2.mirror_uc) AS devido
FROM d2.mirror_state s;
