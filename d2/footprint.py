"""Every object D-2 creates or alters outside schema d2: the one list the table of
docs/monolith.md shows and `d2 db verify` checks against.

Kinds match what sql/queries/verify.sql (footprint_catalog) reads from the catalog:
extension, table, column, index, sequence, trigger, function, role. A name is
schema-qualified; a column, index or trigger is `table.name` (its table's schema first).
tests/unit/test_footprint.py checks that docs/monolith.md's table holds exactly these
rows and that a migrated database holds nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DbObject:
    kind: str
    name: str
    why: str
    cost: str
    removal: str


_CAPTURA = (
    "change capture: records the ids a statement changed in d2.mirror_mudancas; "
    "D-2 applies them to its mirror later, outside the writer's transaction"
)
_CAPTURA_CUSTO = (
    "one INSERT … SELECT of the statement's transition table into an unindexed table "
    "(within the noise of the writer's own time: docs/performance.md); no lock a writer "
    "waits on, no NOTIFY"
)
_CAPTURA_FORA = (
    "`DROP TRIGGER … ON core.uc_polygons` (the mirror then stops following the table; "
    "`d2 mirror rebuild` after re-creating it)"
)
_DA_SPEC = "the spec's migration (§2.6, §2.7) where the monolith's table lacks it"
_SE_FALTA = "created only where missing; a table D-2 created is marked with a COMMENT"

OBJETOS: tuple[DbObject, ...] = (
    DbObject(
        "extension",
        "postgis",
        "the mirror's geometry, the resolver",
        "none for other colonies (types and functions in schema public)",
        "`DROP EXTENSION postgis` only after `d2 migrate --downgrade base`",
    ),
    DbObject(
        "extension",
        "unaccent",
        "core.uc_polygons.nome_busca (spec §2.6)",
        "none",
        "`DROP EXTENSION unaccent` after removing the nome_busca trigger",
    ),
    DbObject(
        "extension",
        "pg_trgm",
        "a misspelt street of an address matched to its município's CEP streets by trigram "
        "similarity (d2.ceps)",
        "none (created only where missing)",
        "`DROP EXTENSION pg_trgm` after schema d2",
    ),
    DbObject(
        "table",
        "public.d2_alembic_version",
        "D-2's migration state (a wide column: the spec's migration names)",
        "none",
        "`DROP TABLE public.d2_alembic_version` (D-2 then sees an unmigrated database)",
    ),
    DbObject(
        "role",
        "d2_worker",
        "least privilege for the worker's login (cluster-wide, NOLOGIN)",
        "none",
        "`d2 migrate --downgrade base`, or REVOKE its grants and `DROP ROLE d2_worker`",
    ),
    DbObject(
        "role",
        "d2_operador",
        "least privilege for an operator who closes reviews (cluster-wide, NOLOGIN): reads "
        "the review queue, calls d2.revisao_atribuir and d2.revisao_descartar",
        "none",
        "`d2 migrate --downgrade base`, or REVOKE its grants and `DROP ROLE d2_operador`",
    ),
    DbObject(
        "table",
        "core.uc_polygons",
        "the spec's table (§2.6) for standalone installs",
        "none: " + _SE_FALTA,
        "downgrade drops it only if D-2 created it",
    ),
    DbObject(
        "column",
        "core.uc_polygons.fonte",
        _DA_SPEC,
        "added NOT NULL with a default that is then dropped (a rewrite on old PostgreSQL)",
        "`ALTER TABLE core.uc_polygons DROP COLUMN fonte` (the importers need it)",
    ),
    DbObject(
        "column",
        "core.uc_polygons.metadados",
        _DA_SPEC,
        "none (a constant default)",
        "`ALTER TABLE … DROP COLUMN metadados` (the importers need it)",
    ),
    DbObject(
        "column",
        "core.uc_polygons.populacao_estimada",
        _DA_SPEC,
        "none (nullable)",
        "`ALTER TABLE … DROP COLUMN populacao_estimada`",
    ),
    DbObject(
        "column",
        "core.uc_polygons.nome_busca",
        _DA_SPEC + "; kept by the trigger below",
        "none (a constant default)",
        "`ALTER TABLE … DROP COLUMN nome_busca` after the trigger",
    ),
    DbObject(
        "index",
        "core.uc_polygons.uc_polygons_pkey",
        "the spec's primary key (id), when D-2 created the table",
        "the spec's",
        "with the table",
    ),
    DbObject(
        "index",
        "core.uc_polygons.uc_polygons_unidade_civica_id_idx",
        "the spec's index (§2.6): chains and names by UC",
        "one B-tree entry per written row",
        "`DROP INDEX core.uc_polygons_unidade_civica_id_idx` (chains get slow)",
    ),
    DbObject(
        "index",
        "core.uc_polygons.uc_polygons_nivel_idx",
        "the spec's index (§2.6)",
        "one B-tree entry per written row",
        "`DROP INDEX core.uc_polygons_nivel_idx`",
    ),
    DbObject(
        "index",
        "core.uc_polygons.uc_polygons_nome_busca_idx",
        "B-tree on nome_busca: each run of an address's words one probe for the name it "
        "spells exactly (d2.candidatos_territorio)",
        "one B-tree entry per written row",
        "`DROP INDEX core.uc_polygons_nome_busca_idx` (addresses are then read slower)",
    ),
    DbObject(
        "trigger",
        "core.uc_polygons.uc_polygons_nome_busca",
        "BEFORE INSERT/UPDATE OF nome, row: keeps nome_busca (spec §2.6, D-7's search)",
        "unaccent + three regexps per written name",
        "`DROP TRIGGER uc_polygons_nome_busca ON core.uc_polygons`",
    ),
    DbObject(
        "function",
        "core.uc_polygons_nome_busca()",
        "the nome_busca trigger's function",
        "as above",
        "`DROP FUNCTION core.uc_polygons_nome_busca()` after the trigger",
    ),
    DbObject(
        "trigger",
        "core.uc_polygons.uc_polygons_capturar_insert",
        _CAPTURA + " (AFTER INSERT, statement, NEW TABLE)",
        _CAPTURA_CUSTO,
        _CAPTURA_FORA,
    ),
    DbObject(
        "trigger",
        "core.uc_polygons.uc_polygons_capturar_update",
        _CAPTURA + " (AFTER UPDATE, statement, OLD and NEW TABLE)",
        _CAPTURA_CUSTO + "; an UPDATE records old and new ids",
        _CAPTURA_FORA,
    ),
    DbObject(
        "trigger",
        "core.uc_polygons.uc_polygons_capturar_delete",
        _CAPTURA + " (AFTER DELETE, statement, OLD TABLE)",
        _CAPTURA_CUSTO,
        _CAPTURA_FORA,
    ),
    DbObject(
        "trigger",
        "core.uc_polygons.uc_polygons_capturar_truncate",
        _CAPTURA + " (AFTER TRUNCATE, statement: one row meaning 'everything')",
        "one row inserted",
        _CAPTURA_FORA,
    ),
    DbObject(
        "table",
        "core.event_log",
        "the event log (DESIGN) for standalone installs",
        "none: " + _SE_FALTA,
        "downgrade drops it only if D-2 created it",
    ),
    DbObject(
        "column",
        "core.event_log.transacao",
        "the readers' fence (docs/reliability.md, 'The event log is gap-safe'): `xid8`, default "
        "`pg_current_xact_id()`, NULL on rows from before; readers go in "
        "(transacao, sequence_number) order below the oldest running transaction",
        "8 bytes per event; the default reads the id the inserting transaction already "
        "has; added without rewriting the table (no default at ADD, then SET DEFAULT)",
        "`DROP INDEX core.event_log_tipo_transacao_idx; "
        "ALTER TABLE core.event_log DROP COLUMN transacao`",
    ),
    DbObject(
        "index",
        "core.event_log.event_log_tipo_transacao_idx",
        "the readers' range scan from their cursor: (tipo, coalesce(transacao, 0), "
        "sequence_number)",
        "one more index entry per inserted event (inside the producers' commits/s figure, "
        "docs/performance.md); the migration blocks writes to the log while it builds it",
        "`DROP INDEX core.event_log_tipo_transacao_idx`",
    ),
    DbObject(
        "index",
        "core.event_log.event_log_pkey",
        "primary key (event_id), when D-2 created the table",
        "DESIGN's",
        "with the table",
    ),
    DbObject(
        "index",
        "core.event_log.event_log_sequence_number_key",
        "sequence_number unique, when D-2 created the table",
        "one B-tree entry per event",
        "with the table",
    ),
    DbObject(
        "index",
        "core.event_log.event_log_tipo_sequence_number_idx",
        "highest number of a type (boot, lag, `d2 status`)",
        "one more index entry per inserted event",
        "`DROP INDEX core.event_log_tipo_sequence_number_idx`",
    ),
    DbObject(
        "sequence",
        "core.event_log_numeracao_seq",
        "on a log D-2 created, sequence_number's default (owned by the column); on the "
        "monolith's log, left from D-2's earlier numbering, unused (its own serial default "
        "is put back as it was, recorded in d2.event_log_original)",
        "none",
        "monolith's log: `DROP SEQUENCE core.event_log_numeracao_seq`",
    ),
    DbObject(
        "table",
        "core.dead_letter_queue",
        "dead letters (spec 3.4) for standalone installs",
        "none: " + _SE_FALTA,
        "downgrade drops it only if D-2 created it",
    ),
    DbObject(
        "index",
        "core.dead_letter_queue.dead_letter_queue_pkey",
        "primary key, when D-2 created the table",
        "none",
        "with the table",
    ),
    DbObject(
        "index",
        "core.dead_letter_queue.dead_letter_queue_consumidor_event_id_key",
        "one dead letter per (consumer, event)",
        "none",
        "with the table",
    ),
    DbObject(
        "index",
        "core.dead_letter_queue.dead_letter_queue_status_idx",
        "pending dead letters by consumer",
        "none",
        "with the table",
    ),
    DbObject(
        "sequence",
        "core.dead_letter_queue_id_seq",
        "the identity of core.dead_letter_queue",
        "none",
        "with the table",
    ),
)


def chaves() -> set[tuple[str, str]]:
    """(kind, name) of every listed object."""
    return {(o.kind, o.name) for o in OBJETOS}


def markdown() -> str:
    """docs/monolith.md's table (tests/unit/test_footprint.py keeps them equal)."""
    linhas = [
        "| kind | object | why | what it costs the other colonies | how to remove it |",
        "|---|---|---|---|---|",
    ]
    for o in OBJETOS:
        linhas.append(f"| {o.kind} | `{o.name}` | {o.why} | {o.cost} | {o.removal} |")
    return "\n".join(linhas)
