-- Per UC, the parent chain d2.cadeia_ucs gives, precomputed (migration 20261202130500):
-- the resolver reads it instead of running the recursive CTE per point. d2.cadeia_ucs
-- stays the source of truth (tests/integration/test_chain_precompute.py checks both
-- agree on every UC); the applier recomputes only the chains whose own link changed.
CREATE TABLE d2.mirror_cadeias (
    unidade_civica_id UUID PRIMARY KEY,
    cadeia_ucs        UUID[] NOT NULL,
    -- The parent_uc_id of the chain's last UC: the missing parent of a partial chain
    -- (or the re-entry UC of a cycle), so that inserting that parent later finds the
    -- chains it completes.
    ultimo_pai        UUID
);

CREATE INDEX mirror_cadeias_ultimo_pai_idx ON d2.mirror_cadeias (ultimo_pai);
