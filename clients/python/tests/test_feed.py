"""The feed's start: it waits for topics the stream has not created yet, and never creates them."""

import time
import unittest

from piper_feed.feed import _await_topic
from piper_feed.records import FeedError


class TopicMetadata:
    def __init__(self, partitions, error=None):
        self.partitions, self.error = partitions, error


class ClusterMetadata:
    def __init__(self, topics):
        self.topics = topics


class TopicAppearsLater:
    """The part of confluent_kafka.Consumer _await_topic uses: the topic exists from look N."""

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
        topic = _await_topic(consumer, "rows", "rows", "127.0.0.1:9092",
                             time.monotonic() + 30, report_s=3600)
        self.assertEqual(sorted(topic.partitions), [0, 1])
        self.assertEqual(consumer.looks, 3)

    def test_a_topic_still_missing_at_the_deadline_is_named(self):
        consumer = TopicAppearsLater("rows", after_looks=10**9)
        with self.assertRaises(FeedError) as e:
            _await_topic(consumer, "rows", "rows", "127.0.0.1:9092", time.monotonic())
        self.assertIn("rows topic rows does not exist on 127.0.0.1:9092", str(e.exception))


if __name__ == "__main__":
    unittest.main()
