"""The parts of the address corpus's generator: d2/bench/address_corpus.py puts them
together (its docstring says what each holds).
"""
