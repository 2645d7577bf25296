-- name: mirror_lock
-- The appliers' lock ('d2_mirr'), for the session, taken before the transaction opens so
-- that its snapshot sees what the previous applier committed. Writers never take it.
SELECT pg_advisory_lock(28202883109974642);

-- name: mirror_try_lock
-- The same without waiting: false when another applier is at work.
SELECT pg_try_advisory_lock(28202883109974642) AS obtido;

-- name: mirror_unlock
-- Releases the session lock of mirror_lock / mirror_try_lock.
SELECT pg_advisory_unlock(28202883109974642);

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
