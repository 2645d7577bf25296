-- Makes a community UC of one submission: its row in core.uc_polygons (fonte
-- 'comunitario', the ids given, made by the caller with gen_random_uuid) and in
-- d2.territorio_ucs, with the drawing as both its canonical geometry and its anchor.
-- Called by d2.territorio_submeter for a 'nova' and by d2.territorio_moderar when a
-- moderator accepts a 'retida'; not callable by anyone else (EXECUTE is the owner's).
CREATE OR REPLACE FUNCTION d2.territorio_criar_uc(p_submissao uuid, p_uc uuid, p_uc_polygon uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    s d2.territorio_submissoes%ROWTYPE;
BEGIN
    SELECT * INTO STRICT s FROM d2.territorio_submissoes t WHERE t.id = p_submissao;
    INSERT INTO core.uc_polygons (
        id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte, metadados
    ) VALUES (
        p_uc_polygon, p_uc, s.nivel, s.parent_uc_id, s.nome, ST_AsGeoJSON(s.geom, 7)::jsonb,
        'comunitario',
        pg_catalog.jsonb_build_object(
            'submissao_id', s.id, 'lugar_id', s.lugar_id, 'event_id', s.event_id,
            'municipio_uc_id', s.municipio_uc_id
        )
    );
    INSERT INTO d2.territorio_ucs (
        unidade_civica_id, uc_polygon_id, nivel, nome, municipio_uc_id, submissao_canonica,
        geom, geom_ancora
    ) VALUES (
        p_uc, p_uc_polygon, s.nivel, s.nome, s.municipio_uc_id, s.id, s.geom, s.geom
    );
    UPDATE d2.territorio_submissoes t SET alvo_uc_id = p_uc WHERE t.id = p_submissao;
END
$$;
