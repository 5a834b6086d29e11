package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.operators.join.LabelJoinMetrics;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code monitoring/grafana-label-join.json} reads the metrics the stream's label join registers,
 * under the names Flink's Prometheus reporter gives them (the operator's scope, the group path, the
 * name; a key-value group's key in the name and its value a label), and every one of them.
 */
class LabelJoinDashboardTest {

    private static final String SCOPE = "flink_taskmanager_job_task_operator_";

    @Test
    void theDashboardReadsEveryMetricOfTheJoinAndNoOther() throws Exception {
        MetricsScrape.Used used =
                MetricsScrape.used(
                        Path.of(System.getProperty("piper.home"))
                                .resolve("monitoring/grafana-label-join.json"));
        String group = SCOPE + LabelJoinMetrics.GROUP + "_";
        Set<String> registered = new TreeSet<>();
        for (String name :
                new String[] {
                    LabelJoinMetrics.ROWS,
                    LabelJoinMetrics.SAMPLED_OUT,
                    LabelJoinMetrics.ACTIONS_JOINED,
                    LabelJoinMetrics.DEAD_LETTERS,
                    LabelJoinMetrics.REASON + "_" + LabelJoinMetrics.DEAD_LETTERS_BY_REASON,
                    LabelJoinMetrics.IMPRESSIONS_HELD,
                    LabelJoinMetrics.LABEL_DELAY_MS
                }) {
            registered.add(group + name);
        }
        assertThat(used.metrics()).isEqualTo(registered);
        assertThat(used.labels())
                .containsExactlyInAnyOrder("job_name", LabelJoinMetrics.REASON, "quantile");
    }
}
