-- The versions of a community UC that make its consensus: the latest 50 submissions aimed
-- at it still in play (new, confirmation, alternative, held) that no moderator rejected
-- and none is still asked about: a version awaiting a moderator (every alternative, and a
-- confirmation held for what it would take) takes no part in choosing the shape until one
-- accepts it. Defined once because the scores added as a drawing arrives
-- (d2.territorio_avaliar), their full recount (d2.territorio_pontuar) and the choice of
-- the canonical shape (d2.territorio_canonizar) must count the very same set. Runs as its
-- caller: a role that may not read d2.territorio_submissoes gets nothing through it.
CREATE OR REPLACE FUNCTION d2.territorio_versoes(p_uc uuid)
RETURNS SETOF d2.territorio_submissoes
LANGUAGE sql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT s.*
    FROM d2.territorio_submissoes s
    WHERE s.alvo_uc_id = p_uc
      AND s.decisao IN ('nova', 'confirmacao', 'alternativa', 'retida')
      AND (s.moderacao IS NULL OR s.moderacao = 'aceita')
    ORDER BY s.criado_em DESC, s.id
    LIMIT 50
$$;
