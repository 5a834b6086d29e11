"""Serving without skew on the Python side: a served answer or a transform's result as the
model's batch (``batches``), and the end-to-end check that the served rows are the fed ones
(``check``; ``python3 -m piper_feed.serve.check``). The request transform itself is
``piper_feed.transform``."""
