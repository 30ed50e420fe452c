"""riskcore: a pure, event-sourced Risk rules engine.

Pure means: standard library only, no I/O, no clock, no global randomness.
Everything random or time-dependent arrives inside commands (as a seeded
generator) or events (as recorded outcomes), so folding the same events
always rebuilds the same state.
"""
