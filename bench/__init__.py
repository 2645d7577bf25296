"""Benchmarks of D-2 (run with `d2 bench`): every figure next to its baseline, same run."""
