-- Which version of a community UC is its canonical shape (spec 8.5: the polygon with the
-- largest total intersection area with the others), among the versions in play
-- (d2.territorio_versoes: none awaiting a moderator). A version a moderator accepted wins
-- (the latest accepted); otherwise the highest score (d2.territorio_submissoes.pontuacao,
-- to 1e-12 square degrees, ~0.01 m²), a tie keeping the current canonical, then the
-- oldest version. Defined once because the choice must be foreseen exactly where it is
-- judged: d2.territorio_canonizar makes it after a submission or a moderation, and
-- d2.territorio_avaliar asks beforehand what a drawing joining the consensus would make
-- it, to judge that move by what it takes.
--   p_acrescimos: what the drawing adds to each version's score, by submission id (its
--     intersection with each, as the evaluation computed it); NULL: nothing.
--   p_nova: the drawing's own score when it joins (NULL: it does not); it then counts as
--     the newest version, and the latest 49 others take part, as after its submission.
-- Returns the chosen version's id, the nil uuid for the drawing itself, NULL when the UC
-- has no version in play.
CREATE OR REPLACE FUNCTION d2.territorio_escolha(
    p_uc uuid, p_acrescimos jsonb, p_nova double precision
)
RETURNS uuid
LANGUAGE sql
STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
    WITH atual AS (
        SELECT t.submissao_canonica AS id FROM d2.territorio_ucs t WHERE t.unidade_civica_id = p_uc
    ), versoes AS (
        SELECT v.id, v.moderacao, v.criado_em,
               v.pontuacao + coalesce((p_acrescimos ->> v.id::text)::double precision, 0)
                   AS pontuacao
        FROM (
            SELECT s.* FROM d2.territorio_versoes(p_uc) s
            ORDER BY s.criado_em DESC, s.id
            LIMIT CASE WHEN p_nova IS NULL THEN 50 ELSE 49 END
        ) v
        UNION ALL
        SELECT '00000000-0000-0000-0000-000000000000'::uuid, NULL, 'infinity'::timestamptz,
               p_nova
        WHERE p_nova IS NOT NULL
    )
    SELECT coalesce(
        (SELECT v.id FROM versoes v WHERE v.moderacao = 'aceita'
         ORDER BY v.criado_em DESC, v.id LIMIT 1),
        (SELECT v.id FROM versoes v
         ORDER BY round(v.pontuacao::numeric, 12) DESC,
                  (v.id IS NOT DISTINCT FROM (SELECT a.id FROM atual a)) DESC, v.criado_em, v.id
         LIMIT 1)
    )
$$;
