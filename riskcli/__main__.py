"""``python -m riskcli``: the ``risk`` command without its console script.

``risk dev``, the end-to-end tests and the benchmarks start child commands
this way, with the interpreter they run in, so they never depend on which
``risk`` happens to be first on PATH.
"""

from riskcli.main import main

if __name__ == "__main__":  # not when a tool walks the package importing every module
    main(prog_name="risk")
