-- A name as D-2 stores it when someone outside D-2's importers wrote it (a citizen's
-- drawing, a uc.poligono_* event): without C0/C1 controls, DEL, zero-width and bidi
-- characters, line and paragraph separators (ESC, CR, U+202E… would travel to every
-- colony that reads the name and repaint an operator's terminal), trimmed, at most 255
-- characters. '' when nothing is left.
CREATE OR REPLACE FUNCTION d2.nome_limpo(p_nome text)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT left(btrim(regexp_replace(coalesce(p_nome, ''),
        '[\u0001-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]', '', 'g')), 255)
$$;
