"""Importers of territorial data into core.uc_polygons (IBGE, synthetic sample)."""
