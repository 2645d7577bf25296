-- The geocoder's CEPs (d2/geocoder/places/lookup.py, through the query cep_lookup): for each CEP asked, its locality's UF,
-- its município UC (name and chain) and bairro UC (name and chain) where linked, and
-- CEP Aberto's bairro and street. The CEPs go as char(8)[], the column's type: as text[]
-- they would cast the column and skip its index (a scan of 1.14 M rows per round).
-- A CEP CEP Aberto lacks is read by its 5-digit range (faixa): when every CEP known in
-- that range lies in one linked município, that município (and the bairro UC, when every
-- one of them is linked to the same bairro), no street; not when any of them is
-- unlinked, nor when they span two municípios. A range is at most 1,000 CEPs, read by
-- the primary key. The chains come from d2.mirror_cadeias, as d2.candidatos_territorio's
-- do (d2.cadeia_ucs, ~14 ms a CEP nationally, only for a UC not precomputed).
-- A function, with one generic plan kept for the session: the statement's custom plan
-- cost ~0.6 ms a call, three times what running it costs (migration 20261206110100).
CREATE OR REPLACE FUNCTION d2.ceps_lidos(ceps char(8)[])
RETURNS TABLE (
    cep bpchar, uf text, localidade text, bairro text, logradouro text, faixa boolean,
    municipio_uc_id text, municipio_nome text, municipio_cadeia text[], bairro_uc_id text,
    bairro_nome text, bairro_cadeia text[]
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, public
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH exatos AS (
        SELECT c.cep, l.uf, l.nome AS localidade, c.bairro, c.logradouro,
               l.municipio_uc_id, c.bairro_uc_id, false AS faixa
        FROM d2.ceps c
        JOIN d2.cep_localidades l ON l.id = c.localidade_id
        WHERE c.cep = ANY(ceps_lidos.ceps)
    ),
    faixas AS (
        SELECT p.cep, f.uf, f.localidade, f.bairro, ''::varchar AS logradouro,
               f.municipio_uc_id, f.bairro_uc_id, true AS faixa
        FROM (SELECT DISTINCT unnest(ceps_lidos.ceps) AS cep) p
        CROSS JOIN LATERAL (
            SELECT min(l.uf) AS uf, min(l.nome) AS localidade,
                   (array_agg(DISTINCT l.municipio_uc_id))[1] AS municipio_uc_id,
                   count(DISTINCT l.municipio_uc_id) AS municipios,
                   bool_and(l.municipio_uc_id IS NOT NULL) AS ligados,
                   CASE WHEN bool_and(c.bairro_uc_id IS NOT NULL)
                             AND count(DISTINCT c.bairro_uc_id) = 1
                        THEN (array_agg(DISTINCT c.bairro_uc_id))[1] END AS bairro_uc_id,
                   CASE WHEN count(DISTINCT c.bairro) = 1 THEN min(c.bairro) ELSE '' END AS bairro,
                   count(*) AS ceps
            FROM d2.ceps c
            JOIN d2.cep_localidades l ON l.id = c.localidade_id
            WHERE c.cep BETWEEN (left(p.cep, 5) || '000')::char(8)
                            AND (left(p.cep, 5) || '999')::char(8)
        ) f
        WHERE f.ceps > 0 AND f.ligados AND f.municipios = 1
          AND NOT EXISTS (SELECT 1 FROM exatos e WHERE e.cep = p.cep)
    )
    SELECT x.cep::bpchar, x.uf::text, x.localidade::text, x.bairro::text, x.logradouro::text,
           x.faixa, x.municipio_uc_id::text AS municipio_uc_id, m.nome::text AS municipio_nome,
           coalesce(mc.cadeia_ucs, d2.cadeia_ucs(x.municipio_uc_id))::text[] AS municipio_cadeia,
           x.bairro_uc_id::text AS bairro_uc_id, b.nome::text AS bairro_nome,
           coalesce(bc.cadeia_ucs, d2.cadeia_ucs(x.bairro_uc_id))::text[] AS bairro_cadeia
    FROM (SELECT * FROM exatos UNION ALL SELECT * FROM faixas) x
    LEFT JOIN d2.mirror_cadeias mc ON mc.unidade_civica_id = x.municipio_uc_id
    LEFT JOIN d2.mirror_cadeias bc ON bc.unidade_civica_id = x.bairro_uc_id
    LEFT JOIN LATERAL (
        SELECT u.nome FROM core.uc_polygons u
        WHERE u.unidade_civica_id = x.municipio_uc_id ORDER BY u.id LIMIT 1
    ) m ON true
    LEFT JOIN LATERAL (
        SELECT u.nome FROM core.uc_polygons u
        WHERE u.unidade_civica_id = x.bairro_uc_id ORDER BY u.id LIMIT 1
    ) b ON true;
END;
$$;
