-- A name as core.uc_polygons.nome_busca keeps it (the trigger core.uc_polygons_nome_busca):
-- lower case, no accents, apostrophes dropped, other punctuation a space, spaces
-- collapsed. `d2 cep import` compares CEP Aberto's município and bairro names with the
-- territory's through it ("Pingo-D'Água" and "Pingo d'Água" are both "pingo dagua").
CREATE OR REPLACE FUNCTION d2.nome_busca(nome text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, public
AS $$
    SELECT left(btrim(regexp_replace(
        regexp_replace(
            regexp_replace(lower(unaccent(nome)), '[''`´’]', '', 'g'),
            '[^a-z0-9]+', ' ', 'g'),
        '\s+', ' ', 'g')), 255);
$$;
