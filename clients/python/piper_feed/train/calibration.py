"""Weights and calibration for rows whose negatives were sampled (the label join's
``negative_sample_rate``, docs/SPECS.md "Negative sampling").

A kept negative stands for ``w = 1 / rate`` rows, and its ``labels.weight`` says so. Two ways to
train on such rows, and each predicts the click rate of the whole population:

- with the weights (``python3 -m piper_feed.train --weight-column``): each row's loss counts ``w``
  times, so the model's probabilities are the population's as they are;
- without them (He et al., ADKDD 2014): the model learns the sampled rows' rate, higher than the
  population's, and each probability ``p`` is recalibrated as
  ``q = p / (p + (1 - p) / rate)`` (``recalibrate``; He et al. write the rate ``w``).

Calibration is then measured over the population the rows stand for: the weighted mean of the
probabilities against the weighted share of positives (``calibration``).
"""

import numpy as np
import torch


def recalibrate(p, rate):
    """He et al.'s correction of a probability ``p`` learned, without weights, on rows whose
    negatives were kept at ``rate`` (the spec's ``negative_sample_rate``, their ``w``):
    ``q = p / (p + (1 - p) / rate)``. ``p`` and ``rate`` may be numbers, numpy arrays or tensors
    (broadcast); ``rate`` is in (0, 1] (1: nothing was sampled, ``q = p``). A kept negative's
    ``labels.weight`` is ``1 / rate``."""
    bad = (not 0 < rate <= 1) if isinstance(rate, (int, float)) else \
        not bool(((rate > 0) & (rate <= 1)).all())
    if bad:
        shown = rate if isinstance(rate, (int, float)) else rate.min()
        raise ValueError(f"a negative sample rate is in (0, 1], not {shown}")
    return p / (p + (1 - p) / rate)


def calibration(probabilities, labels, weights=None):
    """Over the population the rows stand for (each row counting its weight; every row 1 without
    weights): the mean predicted probability, the observed share of positives and their ratio
    (1: calibrated; NaN without a positive)."""
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    w = np.ones_like(p) if weights is None else np.asarray(weights, dtype=np.float64)
    if not (len(p) == len(y) == len(w)):
        raise ValueError(f"{len(p)} probabilities, {len(y)} labels and {len(w)} weights")
    return from_sums(float(w.sum()), float((w * p).sum()), float((w * y).sum()))


def from_sums(total, predicted, observed):
    """``calibration`` of rows whose weights sum to ``total``, their weighted probabilities to
    ``predicted`` and their weighted labels to ``observed`` (a running sum keeps no rows)."""
    if total <= 0:
        return {"mean_predicted_ctr": float("nan"), "observed_ctr": float("nan"),
                "calibration": float("nan")}
    return {"mean_predicted_ctr": predicted / total, "observed_ctr": observed / total,
            "calibration": predicted / observed if observed > 0 else float("nan")}
