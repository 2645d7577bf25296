"""Nominatim, the geocoder the address ladder asks: the client (client: which Nominatim
answers, and the Geocoder every one of them is), in process (local) or over an existing
server's HTTP API (remote), in the terms of one search (search); and Nominatim's own
database, imported from an OSM file (importer: `d2 nominatim import`, `d2 nominatim
status`), as Nominatim keeps its search apart from its import."""
