-- Each d2 nominatim import (migration 20261203130000), so that d2 nominatim status says
-- what is loaded, and the worker's address cache knows to empty itself: its generation
-- is the id of the last row.
CREATE TABLE d2.nominatim_importacoes (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    arquivo      VARCHAR(255)     NOT NULL,
    bytes        BIGINT           NOT NULL,
    duracao_s    DOUBLE PRECISION NOT NULL,
    concluida_em TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP
);
