package dev.piper.connectors;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.UserCodeClassLoader;

/** What a source reader under test talks to, outside a Flink task. */
public final class TestReaders {

    private TestReaders() {}

    /** A reader's context that counts its split requests. */
    public static final class Context implements SourceReaderContext {
        public int requests;

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {
            requests++;
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent event) {}

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            throw new UnsupportedOperationException("not used by the readers");
        }

        @Override
        public int currentParallelism() {
            return 1;
        }
    }

    /**
     * Collects what a reader emits: each record, and in {@link #bySplit} each as {@code
     * split:record} ({@code main:record} for one emitted outside a split's output).
     */
    public static final class Output<T> implements ReaderOutput<T> {
        public final List<T> records = new ArrayList<>();
        public final List<String> bySplit = new ArrayList<>();

        @Override
        public void collect(T record) {
            collect(record, "main");
        }

        @Override
        public void collect(T record, long timestamp) {
            collect(record, "main");
        }

        private void collect(T record, String split) {
            records.add(record);
            bySplit.add(split + ":" + record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<T> createOutputForSplit(String splitId) {
            return new SourceOutput<>() {
                @Override
                public void collect(T record) {
                    Output.this.collect(record, splitId);
                }

                @Override
                public void collect(T record, long timestamp) {
                    Output.this.collect(record, splitId);
                }

                @Override
                public void emitWatermark(Watermark watermark) {}

                @Override
                public void markIdle() {}

                @Override
                public void markActive() {}
            };
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }
}
