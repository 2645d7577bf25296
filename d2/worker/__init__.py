"""The worker process: the loop (boot, poll, batches, read-ahead, reconnects), the
leadership lock, the geocoding stage on its own thread, its health, the metrics and
their HTTP port."""
