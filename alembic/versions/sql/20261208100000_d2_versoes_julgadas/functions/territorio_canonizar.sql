-- Chooses the canonical geometry of one community UC among its versions in play: the
-- drawing that created it, its confirmations and the versions a moderator accepted; none
-- awaiting a moderator (spec 8.5: the polygon with the largest total intersection area
-- with the others; the choice itself is d2.territorio_escolha, which the evaluation of a
-- confirmation asks beforehand, to judge the move by what it takes). Each version's
-- total is kept in d2.territorio_submissoes.pontuacao, added to as versions arrive (the
-- evaluation computed the intersections, outside any transaction id), so choosing costs
-- no geometry operation. Every version is within intersection over union 0.5 of the
-- UC's anchor (d2.territorio_avaliar), so the canonical cannot wander off where the UC
-- was drawn, however many confirmations come.
--
-- When the canonical changes, d2.territorio_ucs and the UC's row of core.uc_polygons take
-- its geometry and its parent (the município holding it for a bairro, the bairro holding
-- 95% of it for a micro-área, as its evaluation found), so the chains follow. Returns
-- the new canonical submission when it changed, else NULL. UCs of other sources (ibge,
-- osm) are never rewritten: their geometry belongs to their importer.
CREATE OR REPLACE FUNCTION d2.territorio_canonizar(p_uc uuid)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    atual uuid;
    escolhida uuid;
BEGIN
    SELECT t.submissao_canonica INTO atual
    FROM d2.territorio_ucs t
    WHERE t.unidade_civica_id = p_uc AND t.ativa
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;

    escolhida := d2.territorio_escolha(p_uc, NULL, NULL);

    IF escolhida IS NULL OR escolhida = atual THEN
        RETURN NULL;
    END IF;
    UPDATE d2.territorio_ucs t
    SET submissao_canonica = escolhida,
        geom = s.geom,
        atualizada_em = clock_timestamp()
    FROM d2.territorio_submissoes s
    WHERE t.unidade_civica_id = p_uc AND s.id = escolhida;
    UPDATE core.uc_polygons u
    SET geometria = ST_AsGeoJSON(s.geom, 7)::jsonb,
        parent_uc_id = coalesce(s.parent_uc_id, u.parent_uc_id),
        atualizado_em = CURRENT_TIMESTAMP
    FROM d2.territorio_submissoes s
    WHERE u.unidade_civica_id = p_uc AND u.fonte = 'comunitario' AND s.id = escolhida;
    RETURN escolhida;
END
$$;
