"""The territory: the resolver over the PostGIS mirror of core.uc_polygons, the mirror
itself (change capture, apply, clean intervals), the event-synced replica and the
citizen-drawn polygons (território comunitário). It answers where a point is; it never
decides what a demanda's outcome is (d2.handler does)."""
