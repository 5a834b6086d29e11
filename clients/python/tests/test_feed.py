"""The feed's start: it waits for topics the stream has not created yet, and never creates them."""

import time
import unittest

import numpy as np

from piper_feed.feed.rows import RowsFeed, await_topic
from piper_feed.feed.records import FeedError, RowsBlock


class TopicMetadata:
    def __init__(self, partitions, error=None):
        self.partitions, self.error = partitions, error


class ClusterMetadata:
    def __init__(self, topics):
        self.topics = topics


class TopicAppearsLater:
    """The part of confluent_kafka.Consumer await_topic uses: the topic exists from look N."""

    def __init__(self, name, after_looks):
        self.name, self.after_looks, self.looks = name, after_looks, 0

    def list_topics(self, topic, timeout):
        self.looks += 1
        if self.looks <= self.after_looks:
            # what a broker answers for a topic it does not have (and does not create)
            return ClusterMetadata({topic: TopicMetadata({}, error="UNKNOWN_TOPIC_OR_PART")})
        return ClusterMetadata({topic: TopicMetadata({0: None, 1: None})})


class AwaitTopicTest(unittest.TestCase):

    def test_a_topic_created_while_waiting_is_returned(self):
        consumer = TopicAppearsLater("rows", after_looks=2)
        topic = await_topic(consumer, "rows", "rows", "127.0.0.1:9092",
                             time.monotonic() + 30, report_s=3600)
        self.assertEqual(sorted(topic.partitions), [0, 1])
        self.assertEqual(consumer.looks, 3)

    def test_a_topic_still_missing_at_the_deadline_is_named(self):
        consumer = TopicAppearsLater("rows", after_looks=10**9)
        with self.assertRaises(FeedError) as e:
            await_topic(consumer, "rows", "rows", "127.0.0.1:9092", time.monotonic())
        self.assertIn("rows topic rows does not exist on 127.0.0.1:9092", str(e.exception))


def feed_reading(rows_partitions=1):
    """A RowsFeed's bookkeeping without a broker (its checks read nothing from Kafka)."""
    feed = RowsFeed.__new__(RowsFeed)
    feed.rows_topic = "rows"
    feed.seen_blocks, feed.read_offsets, feed._lanes = set(), {}, {}
    feed._rows_partitions = rows_partitions
    feed._vocab_next, feed._vocab_waiting, feed.table_sizes = {}, {}, {}
    feed.names = {}
    feed._stopping = False
    return feed


def block(number, first, last):
    return RowsBlock(where=f"rows/0@{number}", input_topic="in", input_partition=0,
                     block=number, pipeline="", columns=[], labels=np.zeros(0),
                     dense=np.zeros((0, 0)), dense_names=[], sparse=np.zeros((0, 0)),
                     sparse_names=[], input_offsets=(first, last))


class DuplicatesTest(unittest.TestCase):
    """Issue 40: duplicates were skipped by block number, so after a restart that cut blocks at
    other offsets new rows were dropped (17,988 of 19,984 trained); now by input offsets."""

    def test_blocks_are_recognised_by_their_input_offsets(self):
        feed = feed_reading()
        self.assertFalse(feed._read_before(block(0, 0, 99), ("in", 0, 0)))
        self.assertFalse(feed._read_before(block(1, 100, 199), ("in", 0, 1)))
        self.assertEqual(feed.read_offsets[("in", 0)], [[0, 199]])
        # the same offsets again, in another cut: read before
        self.assertTrue(feed._read_before(block(0, 50, 150), ("in", 0, 0)))
        # new offsets under a block number read before: new rows
        self.assertFalse(feed._read_before(block(1, 200, 260), ("in", 0, 1)))
        self.assertFalse(feed._read_before(block(3, 400, 499), ("in", 0, 3)))
        with self.assertRaisesRegex(FeedError, r"block 2 of in/0 holds input offsets 250-300,"
                                               r" of which 0-260 were read before"):
            feed._read_before(block(2, 250, 300), ("in", 0, 2))

    def test_a_gap_between_blocks_read_is_refused_at_the_end(self):
        feed = feed_reading(rows_partitions=2)
        feed._lanes = {(0, "in", 0): {0, 2, 6}, (1, "in", 0): {1, 3, 5, 7}}
        with self.assertRaisesRegex(FeedError, r"rows topic rows partition 0: block\(s\) 4 of"
                                               r" in/0 never arrived, between blocks 0 and 6"):
            feed._check_no_gaps()
        feed._lanes[(0, "in", 0)].add(4)
        feed._check_no_gaps()

    def test_a_string_columns_entries_name_their_indices(self):
        feed = feed_reading()
        feed._vocab = OneMessage(NamedVocabMessage(6, 2, 1))
        self.assertTrue(feed._poll_vocab(0))
        feed._vocab = OneMessage(NamedVocabMessage(4, 2, 0))
        self.assertTrue(feed._poll_vocab(0))
        self.assertEqual(feed.names[("C3", 0)], {4: "s4", 5: "s5", 6: "s6", 7: "s7"})
        self.assertEqual(feed.table_sizes[("C3", 0)], 8)

    def test_vocabulary_entries_announced_twice_are_refused(self):
        feed = feed_reading()
        feed._vocab = None
        for first, count, offset in [(4, 2, 0), (6, 1, 1)]:
            self.assertTrue(_note_vocab(feed, first, count, offset))
        with self.assertRaisesRegex(FeedError, r"vocab/0@2: C3 \(epoch 0\) entries from index 5"
                                               r" seen twice"):
            _note_vocab(feed, 5, 1, 2)


class PositionTest(unittest.TestCase):

    def test_the_feeds_position_is_the_furthest_of_the_blocks_yielded_per_column(self):
        feed = feed_reading()
        feed.vocab_position = {}

        def positioned(number, epochs, positions):
            b = block(number, number * 10, number * 10 + 9)
            b.epochs, b.buckets = epochs, {"C1": 0, "C2": 3}
            b.vocab_position = positions
            return b

        feed._advance_position(positioned(0, {"C1": 0, "C2": 0}, {"C1": 40, "C2": 7}))
        # another partition's block applied earlier: C1 stays, C2 goes on
        feed._advance_position(positioned(1, {"C1": 0, "C2": 0}, {"C1": 35, "C2": 9}))
        self.assertEqual(feed.vocab_position, {"C1": (0, 0, 40), "C2": (0, 3, 9)})
        # a new epoch of C1 starts again from 0 and is further on than any of epoch 0
        feed._advance_position(positioned(2, {"C1": 1, "C2": 0}, {"C1": 2, "C2": 9}))
        self.assertEqual(feed.vocab_position["C1"], (1, 0, 2))
        feed._advance_position(block(3, 40, 49))  # a record stating no position: nothing moves
        self.assertEqual(feed.vocab_position["C2"], (0, 3, 9))


class VocabMessage:
    def __init__(self, first, count, offset):
        self.first, self.count, self._offset = first, count, offset

    def error(self):
        return None

    def topic(self):
        return "vocab"

    def partition(self):
        return 0

    def offset(self):
        return self._offset

    def headers(self):
        return [("piper.column", b"C3"), ("piper.first.index", str(self.first).encode()),
                ("piper.count", str(self.count).encode()), ("piper.oov.buckets", b"4")]

    def value(self):
        return "".join(f"{i}\t{i * 10}\n" for i in range(self.first, self.first + self.count)) \
            .encode()


class OneMessage:
    """The vocabulary consumer's poll, answering one message."""

    def __init__(self, message):
        self.message = message

    def poll(self, timeout):
        return self.message


class NamedVocabMessage:
    """A string column's vocabulary record: entry i named "s<i>"."""

    def __init__(self, first, count, offset):
        self._plain = VocabMessage(first, count, offset)

    def __getattr__(self, name):
        return getattr(self._plain, name)

    def value(self):
        p = self._plain
        return "".join(f"{i}\t{i * 10}\ts{i}\n" for i in range(p.first, p.first + p.count)) \
            .encode()


def _note_vocab(feed, first, count, offset):
    feed._vocab = OneMessage(VocabMessage(first, count, offset))
    return feed._poll_vocab(0)


class NothingYet:
    """A rows consumer with no records: every poll times out."""

    def poll(self, timeout):
        return None


class StopTest(unittest.TestCase):

    def test_a_stopped_feed_ends_its_iteration_without_waiting_for_the_idle_timeout(self):
        feed = feed_reading()
        feed._rows = NothingYet()
        feed.idle_timeout_s = 3600
        feed.stop()
        self.assertEqual(list(feed), [])


if __name__ == "__main__":
    unittest.main()
