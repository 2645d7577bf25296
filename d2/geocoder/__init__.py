"""Textual addresses (issue 14): a self-hosted Nominatim (in process or over HTTP), the
territorial inference over core.uc_polygons, and the queue of address demands waiting
for them. Addresses are personal data (LGPD): nothing here logs one at INFO or puts one
in a metric label.
"""
