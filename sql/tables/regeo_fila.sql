-- The stored resolutions whose point lies in a changed area (d2.regeo_areas), waiting
-- for today's answer. Worked in chunks, each leaving the queue in the transaction that
-- rewrites it: a killed worker resumes where it was, nothing is rewritten twice.
CREATE TABLE d2.regeo_fila (
    -- d2.resolucoes_geo.id.
    resolucao_id UUID PRIMARY KEY
);
