"""The event log, core.event_log: publishing (Registry-validated, d2.eventlog.bus),
reading behind the fence of the oldest running transaction, cursor consumers
(d2.eventlog.consumer), dead letters and the Registry's schemas. Nothing here knows what
an event means."""
