package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.junit.jupiter.api.Test;

class ReadAheadEnumeratorTest {

    private record Split(String splitId) implements SourceSplit {}

    /** An event that is not the read-ahead's, for the enumerator underneath. */
    private record Other(String what) implements SourceEvent {}

    /** The enumerator underneath: notes each call it gets. */
    private static final class Inner implements SplitEnumerator<Split, String> {
        final List<String> calls = new ArrayList<>();

        @Override
        public void start() {
            calls.add("start");
        }

        @Override
        public void handleSplitRequest(int subtaskId, String host) {
            calls.add("request " + subtaskId + " " + host);
        }

        @Override
        public void addSplitsBack(List<Split> splits, int subtaskId) {
            calls.add("back " + splits + " " + subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            calls.add("reader " + subtaskId);
        }

        @Override
        public String snapshotState(long checkpointId) {
            calls.add("snapshot " + checkpointId);
            return "state of " + checkpointId;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            calls.add("complete " + checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) {
            calls.add("aborted " + checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent event) {
            calls.add("event " + subtaskId + " " + event);
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    private final Inner inner = new Inner();

    /** The events sent to the readers, as "subtask:hold" ("none" for no hold). */
    private final List<String> sent = new ArrayList<>();

    private final TestEnumeratorContext<Split> context =
            new TestEnumeratorContext<>(
                    (subtask, event) -> {
                        long ms = ((ReadAheadEnumerator.OthersHold) event).ms();
                        sent.add(
                                subtask
                                        + ":"
                                        + (ms == Long.MAX_VALUE ? "none" : Long.toString(ms)));
                    });
    private final ReadAheadEnumerator<Split, String> enumerator =
            new ReadAheadEnumerator<>(inner, context);

    private void register(int... subtasks) {
        for (int s : subtasks) {
            context.register(s);
            enumerator.addReader(s);
        }
    }

    private void hold(int subtask, long ms) {
        enumerator.handleSourceEvent(subtask, new ReadAheadEnumerator.ReaderHold(ms));
    }

    @Test
    void eachReaderIsToldTheLeastHoldOfTheOthersWhereItChanged() {
        register(0, 1, 2);
        assertThat(sent).isEmpty(); // nobody holds yet

        hold(0, 1000);
        assertThat(sent).containsExactly("1:1000", "2:1000");

        hold(1, 900); // 0 now sees 900; 2 sees the least of 0 and 1: 900
        assertThat(sent).endsWith("0:900", "2:900");

        sent.clear();
        hold(2, 5000); // the others' least holds stay 900 and 1000 for 0 and 1, 900 for 2
        assertThat(sent).isEmpty();

        hold(1, 2000); // 0: least of 1 and 2 = 2000; 2: least of 0 and 1 = 1000
        assertThat(sent).containsExactly("0:2000", "2:1000");

        sent.clear();
        hold(0, Long.MAX_VALUE); // 0 stops holding: 1 sees 5000, 2 sees 2000
        assertThat(sent).containsExactly("1:5000", "2:2000");
    }

    @Test
    void aReaderRegisteringAgainHoldsNothingUntilItReports() {
        register(0, 1);
        hold(0, 1000);
        hold(1, 3000);
        assertThat(sent).containsExactly("1:1000", "0:3000");

        sent.clear();
        enumerator.addReader(0); // restarted: its old hold goes, and it is told the others' again
        assertThat(sent).containsExactly("0:3000", "1:none");
        assertThat(inner.calls).endsWith("reader 0");
    }

    @Test
    void everythingElseGoesToTheEnumeratorUnderneath() throws Exception {
        register(0);
        enumerator.start();
        enumerator.handleSplitRequest(0, "host-a");
        enumerator.addSplitsBack(List.of(new Split("t-0")), 0);
        assertThat(enumerator.snapshotState(7)).isEqualTo("state of 7");
        enumerator.notifyCheckpointComplete(7);
        enumerator.notifyCheckpointAborted(8);
        enumerator.handleSourceEvent(0, new Other("x"));
        hold(0, 10); // the read-ahead's own: not passed on
        enumerator.close();

        assertThat(inner.calls)
                .containsExactly(
                        "reader 0",
                        "start",
                        "request 0 host-a",
                        "back [Split[splitId=t-0]] 0",
                        "snapshot 7",
                        "complete 7",
                        "aborted 8",
                        "event 0 Other[what=x]",
                        "close");
    }
}
