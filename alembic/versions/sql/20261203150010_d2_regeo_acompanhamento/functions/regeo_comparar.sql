-- Today's answer for some stored resolutions, where it differs from the stored one:
-- one batch resolver call for all of them (d2.resolver_territorios), not one call per
-- row. A row with NULL new columns lies in no polygon today (the caller leaves it).
-- Resolutions by 'inferencia' were chosen by a name, not by their point: left out.
CREATE OR REPLACE FUNCTION d2.regeo_comparar(p_ids uuid[])
RETURNS TABLE (
    id uuid,
    unidade_civica_id uuid,
    nivel_minimo_resolvido integer,
    cadeia_ucs uuid[],
    nova_uc uuid,
    novo_nivel integer,
    nova_cadeia uuid[]
)
LANGUAGE sql
STABLE
AS $$
    WITH alvo AS (
        SELECT r.id, r.coordenadas_lat, r.coordenadas_lng, r.unidade_civica_id,
               r.nivel_minimo_resolvido, r.cadeia_ucs,
               row_number() OVER (ORDER BY r.id)::integer AS ordem
        FROM d2.resolucoes_geo r
        WHERE r.id = ANY (p_ids) AND r.metodo_resolucao <> 'inferencia'
    ),
    novas AS (
        SELECT n.*
        FROM d2.resolver_territorios(
            ARRAY(SELECT a.coordenadas_lat FROM alvo a ORDER BY a.ordem),
            ARRAY(SELECT a.coordenadas_lng FROM alvo a ORDER BY a.ordem)
        ) n
    )
    SELECT a.id, a.unidade_civica_id, a.nivel_minimo_resolvido, a.cadeia_ucs,
           n.unidade_civica_id, n.nivel_minimo_resolvido, n.cadeia_ucs
    FROM alvo a
    LEFT JOIN novas n ON n.ordem = a.ordem
    WHERE (a.unidade_civica_id, a.nivel_minimo_resolvido, a.cadeia_ucs)
          IS DISTINCT FROM (n.unidade_civica_id, n.nivel_minimo_resolvido, n.cadeia_ucs)
$$;
