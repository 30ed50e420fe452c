"""riskcli: the ``risk`` command line, a package of its own.

It sits beside the engine rather than inside ``service`` so that
installing the ``cli`` extra gives a working ``risk`` for the offline
tools (odds, maps, simulations, auditing records) with click as its only
dependency. The server commands are listed by ``riskcli.main`` but their
modules, and with them Flask, Redis and RQ, load only when one is run.
"""
