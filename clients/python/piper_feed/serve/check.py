"""Does a checkpoint score served requests as it scores the feed's rows? End to end, on the broker.

    python3 -m piper_feed.serve.check --bootstrap-servers 127.0.0.1:9092 --rows-topic rows \\
        --checkpoint models/checkpoint-N.pt --spec SPEC --snapshot model.snapshot [--blocks 10]

For rows records of the checkpoint's pipeline (``--blocks`` of those the model was trained on,
at or before its vocabulary position, and as many after it: later events), it reads each
record's own input records back from the input topic (the offsets the record names), turns them
into the model's inputs as serving does (``piper_feed.transform`` at the snapshot, in process;
or ``--serve-url`` of a running ``piper serve --snapshot``), and scores them with the checkpoint;
the trainer's own scoring of the feed's rows is the other side. They must be equal, row for row.
A row of a later block holding a key the vocabulary admitted after the checkpoint is counted,
not compared: the feed gives the key its new index, serving the column's OOV bucket or reserved
index, neither of them trained at the checkpoint. Exit 1 on any other difference, naming it.
"""

import argparse
import json
import sys
import time
import urllib.request

import torch
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from ..train import checkpoint
from ..feed.rows import await_topic, batch_of, feed_consumer
from ..feed.records import FeedError, decode_rows
from .batches import batch_from_answer, batch_from_result, check_snapshot, score, table_sizes
from ..transform import Snapshot, Spec, Transform, TransformError


def input_records(consumer, topic, partition, first, last, timeout_s):
    """The values of input records ``first..last`` of ``topic``/``partition``, in order."""
    consumer.assign([TopicPartition(topic, partition, first)])
    values, deadline = [], time.monotonic() + timeout_s
    while True:
        m = consumer.poll(0.5)
        if m is None:
            if time.monotonic() > deadline:
                raise FeedError(f"input {topic}/{partition}: offsets {first}..{last} not read"
                                f" within {timeout_s:g} s")
            continue
        if m.error():
            raise FeedError(f"input {topic}/{partition}: {m.error()}")
        if m.offset() > last:
            break
        values.append(m.value() or b"")
        if m.offset() == last:
            break
    return values


def body_of(values, lines):
    """A request's body of input records: lines, each ended by a line break, or each a 4-byte
    big-endian length and the record (Avro datums, Protobuf messages), as piper serve takes it."""
    if lines:
        return b"".join(v if v.endswith(b"\n") else v + b"\n" for v in values)
    return b"".join(len(v).to_bytes(4, "big") + v for v in values)


def at_end(consumer, partitions, ends):
    """Whether the consumer has read every partition up to the end it had when the check began
    (read_committed: past the transactions' markers too)."""
    return all(tp.offset >= ends[tp.partition] for tp in consumer.position(partitions))


def later(block, trained):
    """Whether the block's vocabulary position is past the checkpoint's in some column."""
    return any((block.epochs[n], p) > (trained[n]["epoch"], trained[n]["position"])
               for n, p in (block.vocab_position or {}).items() if n in trained)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m piper_feed.serve.check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--rows-topic", required=True)
    parser.add_argument("--checkpoint", required=True, help="a checkpoint-N.pt of piper_feed.train")
    parser.add_argument("--spec", required=True, help="the stream's pipeline spec (JSON file)")
    parser.add_argument("--snapshot", required=True,
                        help="piper vocab snapshot --position of the checkpoint's position file")
    parser.add_argument("--serve-url", help="POST the records to this piper serve /transform"
                        " instead of transforming them in process")
    parser.add_argument("--blocks", type=int, default=10,
                        help="rows records before the checkpoint's position, and after (10)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for records")
    args = parser.parse_args(argv)
    model, state = checkpoint.load(args.checkpoint)
    trained = state["position"]["columns"]
    snapshot = Snapshot.load(args.snapshot)
    check_snapshot(snapshot, state, args.checkpoint)
    transform = Transform(Spec.load(args.spec), snapshot)
    reserved = {c.name: c.reserved_index for c in snapshot.columns}
    rows_consumer = feed_consumer(args.bootstrap_servers, "piper-check-serving", None)
    inputs = Consumer({"bootstrap.servers": args.bootstrap_servers, "group.id": "piper-check",
                       "enable.auto.commit": False, "allow.auto.create.topics": False})
    topic = await_topic(rows_consumer, args.rows_topic, "rows", args.bootstrap_servers,
                        time.monotonic() + args.timeout)
    partitions = [TopicPartition(args.rows_topic, p, OFFSET_BEGINNING)
                  for p in sorted(topic.partitions)]
    ends = {tp.partition: rows_consumer.get_watermark_offsets(tp, timeout=30)[1]
            for tp in partitions}
    rows_consumer.assign(partitions)
    wanted = {False: args.blocks, True: args.blocks}
    counts = {"blocks": 0, "rows": 0, "equal": 0, "new_keys": 0}
    deadline = time.monotonic() + args.timeout
    while any(wanted.values()) and not at_end(rows_consumer, partitions, ends):
        m = rows_consumer.poll(0.5)
        if time.monotonic() > deadline:
            raise FeedError(f"rows topic {args.rows_topic}: no record within {args.timeout:g} s"
                            f" before its end ({ends})")
        if m is None or m.error():
            continue
        deadline = time.monotonic() + args.timeout
        block = decode_rows(m)
        if block.pipeline != state["pipeline"] or block.rows == 0 or not block.input_offsets:
            continue
        kind = later(block, trained)
        if not wanted[kind]:
            continue
        wanted[kind] -= 1
        body = body_of(input_records(inputs, block.input_topic, block.input_partition,
                                     *block.input_offsets, args.timeout), transform.lines)
        if args.serve_url:
            with urllib.request.urlopen(args.serve_url, data=body, timeout=args.timeout) as r:
                served = batch_from_answer(json.load(r), state)
        else:
            served = batch_from_result(transform.apply_body(body), state)
        fed = batch_of(block, table_sizes(block, state))
        where = f"{m.topic()}/{m.partition()}@{m.offset()}"
        if served.rows != fed.rows:
            raise FeedError(f"{where}: served {served.rows} rows of its input records, the"
                            f" feed {fed.rows}")
        new = torch.zeros(fed.rows, dtype=torch.bool)
        for j, name in enumerate(fed.sparse_names):
            new |= fed.sparse[:, j] >= reserved[name]
        for name, (values, offsets) in fed.lists.items():
            for r in range(fed.rows):
                new[r] |= bool((values[offsets[r]:offsets[r + 1]] >= reserved[name]).any())
        if not kind and new.any():
            raise FeedError(f"{where}: the feed has indices past the snapshot's tables in a block"
                            " before the checkpoint's position: a snapshot of another position?")
        same = ~new
        p_served, p_fed = score(model, served), score(model, fed)
        differs = same & (p_served != p_fed)
        if differs.any():
            r = int(torch.nonzero(differs)[0])
            raise FeedError(f"{where}: row {r}: served {float(p_served[r])!r}, the trainer's"
                            f" scoring of the feed's row {float(p_fed[r])!r}"
                            f" ({int(differs.sum())} rows differ)")
        counts["blocks"] += 1
        counts["rows"] += fed.rows
        counts["equal"] += int(same.sum())
        counts["new_keys"] += int(new.sum())
        print(f"check-serving: {where} ({'after' if kind else 'at or before'} the checkpoint):"
              f" {int(same.sum())} of {fed.rows} rows score alike", file=sys.stderr)
    rows_consumer.close()
    inputs.close()
    if counts["blocks"] == 0:
        print("check-serving: no rows records of the checkpoint's pipeline", file=sys.stderr)
        return 1
    found = {kind: args.blocks - left for kind, left in wanted.items()}
    print(f"check-serving: {counts['blocks']} blocks ({found[False]} at or before the"
          f" checkpoint's position, {found[True]} after it), {counts['rows']:,} rows: predictions"
          f" equal on {counts['equal']:,}; {counts['new_keys']:,} rows of later blocks hold keys"
          " new since the checkpoint (not compared)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (FeedError, TransformError, OSError) as e:
        print(f"check-serving: {e}", file=sys.stderr)
        sys.exit(1)
