-- Bands of d2.mirror_faixas whose intervals are missing: a change of a level <= 4
-- mirror row marks the bands it touches (and deletes their intervals), and
-- d2.mirror_faixas_construir builds them after the apply's commit.
CREATE TABLE d2.mirror_faixas_pendentes (
    faixa INTEGER PRIMARY KEY
);
