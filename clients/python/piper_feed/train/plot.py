"""Draws progressive AUC per window of trainers' metrics files (docs/ONLINE.md's figure).

    python3 -m piper_feed.train.plot --out online.png --bayes clicks.tsv.model.json \\
        online=online.json frozen=frozen.json
"""

import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m piper_feed.train.plot", description=__doc__.strip())
    p.add_argument("--out", required=True, help="PNG (or SVG) file to write")
    p.add_argument("--bayes", help="the generator's OUTPUT.model.json, for the Bayes AUC lines")
    p.add_argument("--title", default="Progressive AUC per window")
    p.add_argument("runs", nargs="+", metavar="LABEL=METRICS.json")
    args = p.parse_args(argv)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for run in args.runs:
        label, _, path = run.partition("=")
        if not path:
            p.error(f"{run}: expected LABEL=METRICS.json")
        with open(path) as f:
            windows = json.load(f)["windows"]
        ax.plot([w["rows"] for w in windows], [w["auc"] for w in windows], marker="o",
                markersize=3, label=label)
    if args.bayes:
        with open(args.bayes) as f:
            model = json.load(f)
        drift = model.get("drift_at")
        end = model["lines"]
        ax.hlines(model["bayes_auc"], 0, drift or end, colors="grey", linestyles="dashed",
                  label="Bayes AUC (hidden model)")
        if drift:
            ax.hlines(model["bayes_auc_after_drift"], drift, end, colors="grey",
                      linestyles="dashed")
            ax.axvline(drift, color="red", linewidth=0.8, label=f"drift at line {drift:,}")
    ax.set_xlabel("rows trained")
    ax.set_ylabel("AUC of the window (scored before training)")
    ax.set_title(args.title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot: {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
