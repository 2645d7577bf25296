"""The handler of spec 3.3: classify a batch of demanda.normalizada events (pure),
decide each one's outcome (an address's from the address path's Geocoding), conclude it
(store, publish, mark processed, move the cursor), its outputs, its outcome logs and the
geo cache."""
