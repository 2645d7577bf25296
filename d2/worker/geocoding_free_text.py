"""The free-text path of the geocoding stage (D2_GEOCODER_LADDER=off), kept as it
was: a street, house, POI or CEP match inside D-2's territory, where the município/UF the
text names holds it → 'endereco'/'media' at that point; otherwise the UC the text names
(d2.geocoder.inference) → 'inferencia'/'baixa' at a point on its surface; otherwise
discarded, counted by reason."""

from __future__ import annotations

import threading
import uuid

from d2 import config, db
from d2.geocoder import inference, nominatim, nominatim_search, text
from d2.handler import classification
from d2.handler.cache import LRUCache
from d2.territorio import resolver
from d2.worker.geocoding_round import Round, descartar, registro


class FreeTextPath:
    """The free-text path of one stage: its geocoder, its address cache, and the stage's
    stop signal (once set, nothing more is asked)."""

    def __init__(
        self,
        settings: config.Settings,
        geocodificador: nominatim.Geocoder,
        cache: LRUCache[nominatim_search.Match | tuple[nominatim_search.Match, ...] | None],
        parar: threading.Event,
    ) -> None:
        self.settings = settings
        self.geocodificador = geocodificador
        self.cache = cache
        self.parar = parar

    def geocodificar(
        self, conn: db.Connection, planos: list[classification.Plan], rodada: Round
    ) -> dict[uuid.UUID, str]:
        """Decide every address plan; returns the ones to postpone (event → reason)."""
        consultas: list[int] = [0] * len(planos)
        respostas = self._perguntar(
            [p.endereco for p in planos if p.endereco is not None], consultas
        )
        adiados: dict[uuid.UUID, str] = {}
        decidir: list[tuple[classification.Plan, nominatim_search.Match | None]] = []
        for plano, resposta, n in zip(planos, respostas, consultas, strict=True):
            if isinstance(resposta, nominatim_search.Unavailable):
                adiados[plano.evento.event_id] = str(resposta)
                rodada.resultados["indisponivel"] += 1
            else:
                rodada.respondeu = rodada.respondeu or n > 0
                plano.geocodificacao = registro(plano, None, None, None, n)
                decidir.append((plano, resposta))
        if not decidir:
            return adiados
        inferencias = inference.inferir_muitos(
            conn, [p.endereco for p, _ in decidir if p.endereco is not None]
        )
        de_rua = [(i, a) for i, (_, a) in enumerate(decidir) if a is not None and a.de_rua]
        pontos = resolver.resolver_muitos(conn, [(a.lat, a.lng) for _, a in de_rua])
        no_ponto = {i: r for (i, _), r in zip(de_rua, pontos, strict=True)}
        por_inferencia: list[tuple[classification.Plan, inference.Inference]] = []
        for i, ((plano, achado), inf) in enumerate(zip(decidir, inferencias, strict=True)):
            res = no_ponto.get(i)
            if achado is not None and res is not None and _coerente(plano, achado, res, inf):
                plano.outcome = classification.Outcome.GEORREFERENCIADA
                plano.resolucao, plano.lat, plano.lng = res, achado.lat, achado.lng
                plano.metodo, plano.confianca = "endereco", "media"
                plano.endereco_geocodificado = achado.nome
                rodada.resultados["endereco"] += 1
            elif inf.uc is not None:
                por_inferencia.append((plano, inf))
            else:
                motivo = inf.motivo or inference.Reason.NAO_ENCONTRADO
                if res is not None and motivo == inference.Reason.NAO_ENCONTRADO:
                    motivo = inference.Reason.AMBIGUO  # a street, in no place named
                descartar(plano, str(motivo), rodada)
        self._inferir(conn, por_inferencia, rodada)
        return adiados

    def _perguntar(
        self, enderecos: list[text.Endereco], contagem: list[int]
    ) -> list[nominatim_search.Resposta]:
        """The geocoder's answer per address: the cache, else the text; where the text
        gives no street and a CEP is there, the CEP alone. contagem[i]: the searches
        made for address i (each counted once, for the first address that needed it)."""
        respostas: list[nominatim_search.Resposta] = [None] * len(enderecos)
        faltam: dict[str, list[int]] = {}
        for i, endereco in enumerate(enderecos):
            hit, valor = self.cache.obter_chave(endereco.chave)
            if hit and not isinstance(valor, tuple):
                respostas[i] = valor
            else:
                faltam.setdefault(endereco.consulta, []).append(i)
        consultas = list(faltam)
        for consulta in consultas:
            contagem[faltam[consulta][0]] += 1
        for consulta, resposta in zip(consultas, self._buscar(consultas), strict=True):
            for i in faltam[consulta]:
                respostas[i] = resposta
        self._por_cep(enderecos, [i for c in consultas for i in faltam[c]], respostas, contagem)
        for consulta in consultas:
            for i in faltam[consulta]:
                if not isinstance(respostas[i], nominatim_search.Unavailable):
                    self.cache.definir_chave(enderecos[i].chave, respostas[i])  # type: ignore[arg-type]
        return respostas

    def _buscar(self, consultas: list[str]) -> list[nominatim_search.Resposta]:
        """The geocoder's answers, asked in blocks; once the worker stops, the rest are
        left for later (unavailable now)."""
        bloco = max(1, self.settings.geocoder_concorrencia * 4)
        respostas: list[nominatim_search.Resposta] = []
        for inicio in range(0, len(consultas), bloco):
            if self.parar.is_set():
                faltam = len(consultas) - inicio
                return respostas + [nominatim_search.Unavailable("worker parando")] * faltam
            respostas += self.geocodificador.buscar_muitos(consultas[inicio : inicio + bloco])
        return respostas

    def _por_cep(
        self,
        enderecos: list[text.Endereco],
        perguntados: list[int],
        respostas: list[nominatim_search.Resposta],
        contagem: list[int],
    ) -> None:
        """Where the text gave no street and carries a CEP, ask for the CEP alone."""
        por_cep: dict[str, list[int]] = {}
        for i in perguntados:
            resposta, cep = respostas[i], enderecos[i].cep
            sem_rua = resposta is None or (
                isinstance(resposta, nominatim_search.Match) and not resposta.de_rua
            )
            if sem_rua and cep is not None and cep != enderecos[i].consulta:
                por_cep.setdefault(cep, []).append(i)
        ceps = list(por_cep)
        for cep in ceps:
            contagem[por_cep[cep][0]] += 1
        for cep, resposta in zip(ceps, self._buscar(ceps), strict=True):
            if isinstance(resposta, nominatim_search.Unavailable) or (
                isinstance(resposta, nominatim_search.Match) and resposta.de_rua
            ):
                for i in por_cep[cep]:
                    respostas[i] = resposta

    def _inferir(
        self,
        conn: db.Connection,
        planos: list[tuple[classification.Plan, inference.Inference]],
        rodada: Round,
    ) -> None:
        if not planos:
            return
        ids = sorted({inf.uc.unidade_civica_id for _, inf in planos if inf.uc is not None})
        with db.mapped_errors():
            pontos = {
                row["unidade_civica_id"]: (float(row["lat"]), float(row["lng"]))
                for row in conn.execute(db.q("geocoder_points_on_surface"), {"ids": ids})
            }
        for plano, inf in planos:
            assert inf.uc is not None
            ponto = pontos.get(inf.uc.unidade_civica_id)
            if ponto is None:  # a UC with no polygon in the mirror: no point to publish
                descartar(plano, str(inference.Reason.NAO_ENCONTRADO), rodada)
                continue
            plano.outcome = classification.Outcome.GEORREFERENCIADA
            plano.lat, plano.lng = ponto
            plano.resolucao = resolver.Resolucao(
                inf.uc.unidade_civica_id, inf.uc.nivel, inf.uc.cadeia_ucs
            )
            plano.metodo, plano.confianca = "inferencia", "baixa"
            rodada.resultados["inferencia"] += 1


def _coerente(
    plano: classification.Plan,
    achado: nominatim_search.Match,
    res: resolver.Resolucao,
    inf: inference.Inference,
) -> bool:
    """A street-level match counts where the text says it is: in Brazil, inside the
    município (or UF) the text names, or, when it names none, vouched for by a CEP."""
    if achado.pais not in (None, "br"):
        return False
    cadeia = (res.unidade_civica_id, *res.cadeia_ucs)
    if inf.municipio is not None or inf.ufs:
        return inf.motivo is None and inf.contem(cadeia)
    return plano.endereco is not None and plano.endereco.cep is not None
