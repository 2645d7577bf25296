-- One row per address demand the geocoding stage concluded: the UC and how
-- it was found (from d2.resolucoes_geo; NULL when discarded), the precision and step of
-- the ladder that answered, the fields understood and the Nominatim searches it took
-- (from d2.geocodificacoes). Resolutions by address stored before that table existed
-- appear with NULL precisao, passo, endereco_entendido and consultas.
CREATE OR REPLACE VIEW d2.v_geocodificacoes AS
SELECT coalesce(g.event_id, r.event_id) AS event_id,
       coalesce(g.demanda_id, r.demanda_id) AS demanda_id,
       r.unidade_civica_id,
       r.nivel_minimo_resolvido,
       r.metodo_resolucao,
       r.confianca_geo,
       g.precisao::text AS precisao,
       g.passo::text AS passo,
       g.endereco_entendido,
       g.consultas
FROM d2.geocodificacoes g
FULL JOIN (
    SELECT event_id, demanda_id, unidade_civica_id, nivel_minimo_resolvido,
           metodo_resolucao, confianca_geo
    FROM d2.resolucoes_geo
    WHERE metodo_resolucao <> 'gps'
) r ON r.event_id = g.event_id;
