-- A name as core.uc_polygons.nome_busca keeps it (the trigger core.uc_polygons_nome_busca):
-- lower case, no accents, apostrophes dropped, other punctuation a space, spaces
-- collapsed. `d2 cep import` compares CEP Aberto's município and bairro names with the
-- territory's through it ("Pingo-D'Água" and "Pingo d'Água" are both "pingo dagua").
-- A SQL-standard body (RETURN): its names are bound when it is created, so no caller's
-- search_path reaches them, and with no SET clause PostgreSQL inlines it where it is
-- called. With `SET search_path` each call was a function call of its own, set up
-- again in every statement: ~0.12 ms of d2.lugares_lidos for one street's name, ~5 µs a
-- row against ~3 µs inlined. unaccent's one-argument form reads the dictionary of its
-- own schema, whatever the search_path.
CREATE OR REPLACE FUNCTION d2.nome_busca(nome text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
RETURN left(btrim(regexp_replace(
    regexp_replace(
        regexp_replace(lower(unaccent(nome)), '[''`´’]', '', 'g'),
        '[^a-z0-9]+', ' ', 'g'),
    '\s+', ' ', 'g')), 255);
