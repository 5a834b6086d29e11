package dev.piper.job;

import java.io.OutputStream;
import java.io.PrintStream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The embedded Flink clusters of the ITCases, and the progress stream they silence. */
public final class TestClusters {

    /** Progress output the tests do not read. */
    public static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private TestClusters() {}

    /**
     * A MiniCluster shared by a test class's tests (register it as a static extension): two
     * TaskManagers of two slots each, so that jobs run at parallelism 2 across TaskManagers, with
     * the network between them.
     */
    public static MiniClusterExtension twoByTwo() {
        return of(2, 2);
    }

    /** A MiniCluster of {@code taskManagers} TaskManagers with {@code slots} slots each. */
    public static MiniClusterExtension of(int taskManagers, int slots) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(taskManagers)
                        .setNumberSlotsPerTaskManager(slots)
                        .build());
    }
}
