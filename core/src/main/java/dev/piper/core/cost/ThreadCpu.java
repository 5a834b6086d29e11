package dev.piper.core.cost;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU clock, which the measuring operators read around their work: busy time
 * in core-nanoseconds, blind to the time a thread waits for input or for a core. Where the JVM
 * cannot read thread CPU time, it falls back to wall time and {@link #basis()} says so.
 */
public final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final boolean SUPPORTED = THREADS.isCurrentThreadCpuTimeSupported();

    static {
        if (SUPPORTED && !THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    private ThreadCpu() {}

    /** The calling thread's CPU time in nanoseconds (or wall nanoseconds, see {@link #basis}). */
    public static long now() {
        return SUPPORTED ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** {@code "thread-cpu"}, or {@code "wall"} where thread CPU time cannot be read. */
    public static String basis() {
        return SUPPORTED ? "thread-cpu" : "wall";
    }
}
