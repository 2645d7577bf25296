-- D-2's dead letters: the rows of core.dead_letter_queue whose consumer is D-2 ('D-2',
-- the demand worker) or one of its stages ('D-2/territorio', ...). d2_worker reads,
-- records and marks dead letters through this view only (auto-updatable, CHECK OPTION:
-- it cannot write a row under another consumer's name either); the other colonies'
-- dead letters, and their errors, are not its to see or to rewrite.
CREATE OR REPLACE VIEW d2.dead_letters WITH (security_barrier) AS
SELECT d.id, d.consumidor, d.event_id, d.tipo, d.sequence_number, d.erro, d.tentativas,
       d.status, d.primeiro_erro_em, d.ultimo_erro_em, d.reprocessado_em
FROM core.dead_letter_queue d
WHERE d.consumidor = 'D-2' OR starts_with(d.consumidor, 'D-2/')
WITH CASCADED CHECK OPTION;
