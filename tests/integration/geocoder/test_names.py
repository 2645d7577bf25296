"""Misspelt places against the whole IBGE territory (and the CEPs of MS and AL, which
have a Campo Grande each): a município or UF name written with a letter swapped, dropped
or transposed is proposed by the names the process holds (d2.geocoder.places.names) and ranked
with rapidfuzz (d2.geocoder.places.gazetteer.aproximados); a misspelt bairro is read among the
bairro UCs of the município read. Short names ("Duorados" for Dourados) were under the
trigram similarity the SQL search asked for, and were never proposed."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from d2 import db
from d2.bench import common, geocode_quality_national_run
from d2.geocoder import parser, question
from d2.geocoder.places import decision, lookup, names
from d2.importers import cep

if TYPE_CHECKING:
    from tests.conftest import Server

pytestmark = [pytest.mark.shared_data, pytest.mark.timeout(600)]

Ler = Callable[[str], decision.Contexto]


@pytest.fixture(scope="module")
def nacional(pg_server: Server) -> Iterator[str]:
    """A database with the whole territory of ../shared/data and the CEPs of MS and AL."""
    shared = Path(__file__).resolve().parents[3].parent / "shared" / "data"
    if not (shared / "br_municipios.geojson.gz").exists():
        pytest.skip(f"shared data not found at {shared}")
    srv = common.Server(pg_server.url("postgres"))
    with (
        tempfile.TemporaryDirectory(prefix="d2-spelling-") as tmp,
        common.scratch_db(srv, "spelling") as url,
    ):
        geocode_quality_national_run.importar_territorio(url, shared, Path(tmp), None)
        geocode_quality_national_run.escrever_dump(Path(tmp) / "cep", ("AL", "MS"))
        cep.importar(url, Path(tmp) / "cep")
        yield url


@pytest.fixture
def ler(nacional: str) -> Iterator[Ler]:
    with db.connect(nacional, autocommit=True) as conn:

        def contexto(endereco: str) -> decision.Contexto:
            e = question.do_payload({"entidades_extraidas": {"endereco": endereco}})
            assert e is not None
            return lookup.contextos(conn, [parser.entender(e)])[0]

        yield contexto


def _uf(ctx: decision.Contexto, conn_url: str) -> str:
    assert ctx.municipio is not None
    with db.connect(conn_url, autocommit=True) as conn:
        linha = conn.execute(
            "SELECT metadados ->> 'sigla_uf' AS sigla FROM core.uc_polygons "
            "WHERE nivel = 5 AND unidade_civica_id::text = ANY(%s)",
            [list(ctx.municipio.cadeia_ucs)],
        ).fetchone()
    assert linha is not None
    return str(linha["sigla"])


@pytest.mark.parametrize(
    ("endereco", "municipio"),
    [
        ("Duorados MS", "Dourados"),  # a transposition, the UF's sigla in the segment
        ("Rua 14 de Julho, 1500, Centro, Campo Grnade - MS", "Campo Grande"),
        ("Rua Bahia, 100, Tres Lagaos - MS", "Três Lagoas"),  # a transposition
        ("Rua Bahia, 100, Aquidauna - MS", "Aquidauana"),  # a letter dropped
        ("rua bahia 100 centro duorados ms", "Dourados"),  # one segment, lower case
    ],
)
def test_a_misspelt_municipio_is_read(
    ler: Ler, nacional: str, endereco: str, municipio: str
) -> None:
    ctx = ler(endereco)
    assert ctx.municipio is not None, (endereco, ctx.como_json(), ctx.motivo)
    assert (ctx.municipio.nome, ctx.municipio.exato) == (municipio, False)
    assert _uf(ctx, nacional) == "MS"
    assert not ctx.conflito


def test_a_misspelt_homonym_is_read_as_the_name_written_exactly(ler: Ler) -> None:
    """Campo Grande is a município of MS and of AL: misspelt, the name stands for both as
    the exact name does (the street decides between them)."""
    exato = ler("Rua 14 de Julho, 1500, Centro, Campo Grande")
    ctx = ler("Rua 14 de Julho, 1500, Centro, Campo Grnade")
    ids = sorted(h.unidade_civica_id for h in ctx.homonimos)
    assert len(ids) == 2 and {h.nome for h in ctx.homonimos} == {"Campo Grande"}
    assert ids == sorted(h.unidade_civica_id for h in exato.homonimos)
    assert (ctx.municipio, ctx.motivo) == (exato.municipio, exato.motivo)


@pytest.mark.parametrize(
    ("endereco", "bairro"),
    [
        ("Rua Bahia, 100, Monte Catselo, Campo Grande - MS", "Monte Castelo"),
        # The bairro's name holds another município's (Mata, RS).
        ("Rua Bahia, 100, Mata do Jacitno, Campo Grande - MS", "Mata do Jacinto"),
        ("Rua Bahia, 100, Santa Terezina, Aquidauana - MS", "Santa Terezinha"),
    ],
)
def test_a_misspelt_bairro_is_read_within_its_municipio(
    ler: Ler, endereco: str, bairro: str
) -> None:
    ctx = ler(endereco)
    assert ctx.municipio is not None and ctx.municipio.exato
    assert ctx.bairro is not None and ctx.bairro.nome == bairro, ctx.como_json()
    assert ctx.municipio.unidade_civica_id in ctx.bairro.cadeia_ucs


def test_a_word_of_a_longer_bairro_name_is_not_a_misspelt_bairro(ler: Ler) -> None:
    # Universitárias is one edit or two from the bairro Universitário, but the segment
    # names Núcleo Habitacional Universitárias: not that bairro.
    ctx = ler("Rua Bahia, 100, Núcleo Habitacional Universitárias, Campo Grande - MS")
    assert ctx.municipio is not None and ctx.municipio.nome == "Campo Grande"
    assert ctx.bairro is None


def test_a_misspelling_never_stands_against_a_name_written_exactly(ler: Ler) -> None:
    # Itaporã written exactly: the near Dourados is no second município.
    ctx = ler("Rua Bahia, 100, Duorados, Itaporã - MS")
    assert ctx.municipio is not None and ctx.municipio.nome == "Itaporã"
    assert (ctx.municipio.exato, ctx.conflito) == (True, False)
    # A bairro of the município written exactly: no misspelt one instead.
    ctx = ler("Rua Bahia, 100, Monte Catselo, Centro, Campo Grande - MS")
    assert ctx.bairro is not None and ctx.bairro.nome == "Centro"


def test_the_names_are_held_until_the_mirror_moves(nacional: str) -> None:
    with db.connect(nacional, autocommit=True) as conn:
        antes = names.carregar(conn)
        assert names.carregar(conn) is antes
        assert len(antes.escolhas) > 5000 and antes.bytes() > 0
        conn.execute("UPDATE d2.mirror_state SET versao = versao + 1")
        depois = names.carregar(conn)
    assert depois is not antes and depois.escolhas == antes.escolhas


def test_a_reading_after_the_territory_moved_proposes_from_the_names_read_again(
    nacional: str, ler: Ler
) -> None:
    # The misspellings are proposed from the names held before the round's one round
    # trip reads the mirror's version: held names of an older version that lack
    # Dourados must be read again, and the names' statement with them.
    with db.connect(nacional, autocommit=True) as conn:
        atuais = names.carregar(conn)
        linhas = [
            r
            for r in conn.execute(db.q("geocoder_names")).fetchall()
            if r["nome_busca"] != "dourados"
        ]
        *base, versao = atuais.chave
        assert isinstance(versao, int)
        names._CACHE[tuple(base[:3])] = names.Nomes.de_linhas((*base, versao - 1), linhas)
        ctx = ler("Rua Bahia, 100, Duorados MS")
        assert ctx.municipio is not None and ctx.municipio.nome == "Dourados"
        guardados = names.guardados(conn)
        assert guardados is not None and guardados.chave == atuais.chave
        # The same names held as current are believed: without Dourados, no Dourados.
        names._CACHE[tuple(base[:3])] = names.Nomes.de_linhas(atuais.chave, linhas)
        try:
            sem = ler("Rua Bahia, 100, Duorados MS")
            assert sem.municipio is None or sem.municipio.nome != "Dourados"
        finally:
            names._CACHE.pop(tuple(base[:3]), None)
