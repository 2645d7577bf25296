"""The address path, in one room behind one door: the address a payload gives (question)
goes in at address.AddressPath, which the worker's geocoding stage calls, and one
Geocoding per address comes out (answer). Behind the door: the text read into its fields
(parser, fields, complaint, references, vocabulary), its place read as a whole against
the territory's names and d2.ceps (places/), the ladder of named steps (ladder,
ladder_steps, ladder_rules) asked of Nominatim in process or over HTTP (nominatim/, which
also imports Nominatim's database). Nothing outside imports past the doors
(tests/unit/test_layers.py), and nothing here imports the handler or the worker.
Addresses are personal data (LGPD): nothing here logs one at INFO or puts one in a metric
label."""
