"""Textual addresses: standardise and parse the text, ask Nominatim (in process or over
HTTP), infer a place from names in core.uc_polygons, import Nominatim's database. One
layer: nothing here imports the handler or the worker. Addresses are personal data (LGPD):
nothing here logs one at INFO or puts one in a metric label."""
