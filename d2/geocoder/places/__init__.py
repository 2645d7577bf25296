"""Where an address says it is, read as a whole before any geocoder is asked: the names
its text names (found for a round by lookup, in one round trip; the vocabulary of the
inference in inference), each read as the rest of the text makes it (interpretation),
the misspelt ones proposed from the names the process holds (names), weighed against the
bairros and streets d2.ceps gives each município (gazetteer), and the place decided
(decision: the município or its homonyms, the UF, the bairro, the CEP kept or set aside).
The rules, with worked examples, are docs/geocoding.md's "Reading a place as a whole"."""
