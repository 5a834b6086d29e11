"""Benchmarks of the client: the feed's read rate (``python3 -m piper_feed.bench.feed``), a
training step (``python3 -m piper_feed.bench.step``) and the request transform, in process or
over HTTP (``python3 -m piper_feed.bench.transform``)."""
