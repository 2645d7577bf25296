-- The official place whose name a new community unit would repeat, or NULL (spec 8.5,
-- layer 2). Names are compared as searches compare them (d2.nome_busca: case, accents,
-- punctuation and spacing aside). A drawing waits for a moderator when its name is
--   - that of an official UC it lies on, at any level (a "Centro" over IBGE's Centro);
--   - any município's or UF's, anywhere: a text naming that place would otherwise meet
--     two places of one name, and one of them a citizen's;
--   - that of an official UC of its own município, wherever in it (two bairros of one
--     name in one município).
-- An official bairro's name in another município is anyone's to use. Official: the
-- mirror's rank (d2.mirror_uc.prioridade 0), whatever the source. With core as the
-- mirror's source the names are found through core.uc_polygons' index on nome_busca (one
-- probe); with the replica, by its rows' names.
CREATE OR REPLACE FUNCTION d2.territorio_homonima(p_nome text, p_geom geometry, p_municipio uuid)
RETURNS text
LANGUAGE sql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
    WITH busca AS (
        SELECT d2.nome_busca(p_nome) AS nome
    ), mesmo_nome AS (
        SELECT u.id, u.unidade_civica_id, u.nivel, u.nome
        FROM core.uc_polygons u, busca b
        WHERE d2.mirror_fonte() = 'core' AND u.nome_busca = b.nome
        UNION ALL
        SELECT r.id, r.unidade_civica_id, r.nivel, r.nome
        FROM d2.replica_uc r, busca b
        WHERE d2.mirror_fonte() = 'eventos' AND d2.nome_busca(r.nome) = b.nome
    )
    SELECT x.nome
    FROM (
        -- Where it lies.
        SELECT u.nome, p.nivel
        FROM d2.mirror_pieces p
        JOIN d2.uc_fonte u ON u.id = p.uc_polygon_id
        WHERE p.prioridade = 0 AND p.geom && p_geom AND ST_Intersects(p.geom, p_geom)
          AND d2.nome_busca(u.nome) = (SELECT b.nome FROM busca b)
        UNION ALL
        -- A município or UF anywhere, an official UC of its município.
        SELECT n.nome, n.nivel
        FROM mesmo_nome n
        JOIN d2.mirror_uc m ON m.uc_polygon_id = n.id AND m.prioridade = 0
        WHERE n.nivel IN (4, 5)
           OR EXISTS (SELECT 1 FROM d2.mirror_cadeias c
                      WHERE c.unidade_civica_id = n.unidade_civica_id
                        AND p_municipio = ANY (c.cadeia_ucs))
    ) x
    ORDER BY x.nivel, x.nome
    LIMIT 1
$$;
