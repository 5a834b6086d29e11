package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class CommittedReadsTest {

    @Test
    void aReaderReadsCommittedRecordsAndWaitsLittleAtAPartitionsEnd() {
        Properties props =
                CommittedReads.properties(
                        Map.of(
                                "security.protocol",
                                "SASL_PLAINTEXT",
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_uncommitted"));
        assertThat(props)
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")
                .containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false")
                .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
    }

    @Test
    void aClientsOwnFetchWaitWins() {
        assertThat(
                        CommittedReads.properties(
                                Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500")))
                .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
    }
}
