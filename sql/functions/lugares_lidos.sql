-- The address ladder's reading of a round (d2/geocoder/places/lookup.py; the query
-- geocoder_places calls it): the territory's names in each distinct place text
-- (d2.candidatos_territorio; fonte 'territorio'), then, against the municípios each
-- address names (written exactly, or misspelt as the process proposes them:
-- aproximados) or its CEP's, the names d2.cep_nomes gives them: every run of up to 8
-- words of each place text that is a bairro or street of one of them, and the address's
-- street (fonte 'cep', lugar -1); and whether each of those municípios that has a
-- homonym among them has bairros and streets in d2.ceps at all (fonte 'dados': a name
-- missing there says something only when it has). Words are counted as
-- d2.candidatos_territorio counts them (inicio/fim).
-- A function, with one generic plan kept for the session, because the statement's
-- custom plan cost more than running it (~1.5 ms of a lone text's ~2.7 ms against the
-- national territory; migration 20261206110100). Migration 20261208400000: the names of
-- at most 8 municípios an address names are probed (a hostile text of town names cost
-- ~16 ms, the probes growing with names times words).
CREATE OR REPLACE FUNCTION d2.lugares_lidos(
    ordens integer[], textos text[], enderecos integer[], lugares integer[], indices integer[],
    cep_enderecos integer[], ceps_lidos bpchar[], rua_enderecos integer[], ruas text[],
    aproximados_enderecos integer[], aproximados uuid[], aproximados_nomes text[]
)
RETURNS TABLE (
    fonte text, ordem integer, lugar integer, inicio integer, fim integer,
    unidade_civica_id text, nivel integer, nome varchar, cadeia_ucs text[], exato boolean,
    tipo text, ceps integer
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, public
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH c AS MATERIALIZED (
        SELECT * FROM d2.candidatos_territorio(
            lugares_lidos.ordens,
            array_fill(0, ARRAY[cardinality(lugares_lidos.ordens)]), lugares_lidos.textos)
    ),
    onde AS (
        SELECT o.endereco, o.lugar, o.texto
        FROM unnest(lugares_lidos.enderecos, lugares_lidos.lugares, lugares_lidos.indices)
            AS o (endereco, lugar, texto)
    ),
    -- The municípios each address names: written exactly (the 8 named last: a text of
    -- dozens of town names probes the names of 8 of them, not of all), or misspelt
    -- (proposed in the process, d2/geocoder/places/names.py).
    nomeados AS MATERIALIZED (
        SELECT x.endereco, x.municipio, x.nome
        FROM (
            SELECT y.*, row_number() OVER (
                       PARTITION BY y.endereco ORDER BY y.lugar DESC, y.fim DESC, y.municipio
                   ) AS n
            FROM (
                SELECT DISTINCT ON (o.endereco, c.unidade_civica_id)
                       o.endereco, c.unidade_civica_id AS municipio, c.nome, o.lugar, c.fim
                FROM onde o
                JOIN c ON c.ordem = o.texto
                WHERE c.nivel = 4
                ORDER BY o.endereco, c.unidade_civica_id, o.lugar DESC, c.fim DESC
            ) y
        ) x
        WHERE x.n <= 8
        UNION
        SELECT a.endereco, a.municipio, a.nome
        FROM unnest(lugares_lidos.aproximados_enderecos, lugares_lidos.aproximados,
                    lugares_lidos.aproximados_nomes) AS a (endereco, municipio, nome)
    ),
    municipios AS MATERIALIZED (
        SELECT n.endereco, n.municipio FROM nomeados n
        UNION
        SELECT p.endereco, l.municipio_uc_id
        FROM unnest(lugares_lidos.cep_enderecos, lugares_lidos.ceps_lidos) AS p (endereco, cep)
        JOIN d2.ceps x ON x.cep = p.cep
        JOIN d2.cep_localidades l ON l.id = x.localidade_id
        WHERE l.municipio_uc_id IS NOT NULL
    ),
    palavras AS MATERIALIZED (
        SELECT t.ordem,
               (string_to_array(btrim(regexp_replace(
                    regexp_replace(
                        regexp_replace(lower(unaccent(left(t.texto, 300))), '[''`´’]', '', 'g'),
                        '[^a-z0-9]+', ' ', 'g'),
                    '\s+', ' ', 'g')), ' '))[1:24] AS w
        FROM unnest(lugares_lidos.ordens, lugares_lidos.textos) AS t (ordem, texto)
    ),
    termos AS MATERIALIZED (
        SELECT p.ordem, i AS inicio, f AS fim, array_to_string(p.w[i:f], ' ') AS termo
        FROM palavras p
        CROSS JOIN generate_series(1, coalesce(cardinality(p.w), 0)) AS i
        CROSS JOIN generate_series(i, least(cardinality(p.w), i + 7)) AS f
        WHERE p.w <> '{}' AND p.w <> '{""}'
    ),
    -- Each (município, words) pair one probe of the primary key (the LIMIT keeps the
    -- planner from reading a município's every name to merge them).
    nomes AS (
        SELECT o.endereco, o.lugar, t.inicio, t.fim, n.tipo, m.municipio AS municipio_uc_id,
               n.ceps
        FROM onde o
        JOIN municipios m ON m.endereco = o.endereco
        JOIN termos t ON t.ordem = o.texto
        CROSS JOIN LATERAL (
            SELECT x.tipo, x.ceps FROM d2.cep_nomes x
            WHERE x.municipio_uc_id = m.municipio AND x.nome_busca = t.termo
            LIMIT 2
        ) AS n
        UNION ALL
        SELECT r.endereco, -1, 1, 1, n.tipo, n.municipio_uc_id, n.ceps
        FROM unnest(lugares_lidos.rua_enderecos, lugares_lidos.ruas) AS r (endereco, rua)
        JOIN municipios m ON m.endereco = r.endereco
        JOIN d2.cep_nomes n
          ON n.municipio_uc_id = m.municipio AND n.nome_busca = d2.nome_busca(r.rua)
         AND n.tipo = 'logradouro'
    ),
    -- Only homonyms need it: a município whose name another município of the address has.
    homonimos AS (
        SELECT DISTINCT n.endereco, n.municipio
        FROM nomeados n
        WHERE EXISTS (
            SELECT 1 FROM nomeados n2
            WHERE n2.endereco = n.endereco AND n2.nome = n.nome AND n2.municipio <> n.municipio
        )
    ),
    dados AS (
        SELECT DISTINCT m.municipio, k.tipo
        FROM homonimos m
        CROSS JOIN (VALUES ('bairro'), ('logradouro')) AS k (tipo)
        CROSS JOIN LATERAL (
            SELECT 1 FROM d2.cep_nomes n
            WHERE n.municipio_uc_id = m.municipio AND n.tipo = k.tipo
            LIMIT 1
        ) AS tem
    )
    SELECT 'territorio'::text AS fonte, c.ordem, c.segmento AS lugar, c.inicio, c.fim,
           c.unidade_civica_id::text AS unidade_civica_id, c.nivel, c.nome,
           c.cadeia_ucs::text[] AS cadeia_ucs, c.exato, NULL::text AS tipo, NULL::integer AS ceps
    FROM c
    UNION ALL
    SELECT 'cep', n.endereco, n.lugar, n.inicio, n.fim, n.municipio_uc_id::text, NULL, NULL,
           NULL, NULL, n.tipo::text, n.ceps
    FROM nomes n
    UNION ALL
    SELECT 'dados', NULL, NULL, NULL, NULL, d.municipio::text, NULL, NULL, NULL, NULL, d.tipo::text,
           NULL
    FROM dados d;
END;
$$;
