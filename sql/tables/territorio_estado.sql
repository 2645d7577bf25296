-- One row: the generation of the community territory, moved by every submission
-- (d2.territorio_submeter). A drawing's verdict records the generation it was evaluated
-- at; one evaluated before another drawing was submitted is evaluated again.
CREATE TABLE d2.territorio_estado (
    id      BOOLEAN PRIMARY KEY DEFAULT true,
    geracao BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT territorio_estado_id_check CHECK (id)
);
