"""The address path, in one room: a textual address read (fields, text), its place read
as a whole against the territory's names and d2.ceps (places, gazetteer), asked down the
ladder of named steps (ladder, ladder_steps, ladder_rules) of Nominatim (in process or
over HTTP); and Nominatim's database imported. One door: address.AddressPath, which the
worker's geocoding stage calls and which answers a Geocoding per address; nothing here
imports the handler or the worker. Addresses are personal data (LGPD): nothing here logs
one at INFO or puts one in a metric label."""
