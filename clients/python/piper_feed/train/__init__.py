"""Training on the feed: the model (``model``: a DLRM and its growing embedding store), the
online training loop and its metrics (``loop``; ``python3 -m piper_feed.train``), the model's
checkpoint with the vocabulary position it was trained to (``checkpoint``), and the
online-versus-frozen figure of docs/ONLINE.md (``python3 -m piper_feed.train.plot``)."""
