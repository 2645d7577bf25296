"""What operators run beside the worker: status, the dead-letter and review queues,
re-georeferencing, the map. Everything here runs the handler or reads its outcomes, and
is safe while the worker runs."""
