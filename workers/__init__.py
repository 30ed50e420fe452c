"""workers: RQ jobs (bot turns, clocks, exports) and the outbox relay."""
