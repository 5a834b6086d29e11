package dev.piper.operators.resume;

import java.util.Set;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * A keyed process function's operator that, as it opens (after its state is restored, before any
 * record or checkpoint barrier), lets its function bring the state of chosen keys up to date: the
 * keyed side of a fast-forward past output an earlier run committed ({@code FastForward}). Done
 * then rather than when a key's first record arrives, so that a checkpoint taken before that record
 * already holds the caught-up state: a later resume from it has no fast-forward of its own to take.
 *
 * <p>Each subtask catches up the keys in its own key groups; a restart of the job does it again, so
 * the function's catch-up must leave state that is already up to date as it is.
 */
public final class CatchUpOperator<IN, OUT> extends KeyedProcessOperator<Integer, IN, OUT> {

    private static final long serialVersionUID = 1L;

    /** A keyed function whose state some keys must catch up. */
    public interface CatchingUp {

        /** The keys to catch up. */
        Set<Integer> catchUpKeys();

        /** Brings the state of {@code key}, the current key, up to date. */
        void catchUp(int key) throws Exception;
    }

    /**
     * @param function the function, which catches up
     */
    public <F extends KeyedProcessFunction<Integer, IN, OUT> & CatchingUp> CatchUpOperator(
            F function) {
        super(function);
    }

    @Override
    public void open() throws Exception {
        super.open();
        CatchingUp catchingUp = (CatchingUp) userFunction;
        TaskInfo task = getRuntimeContext().getTaskInfo();
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        for (int key : catchingUp.catchUpKeys()) {
            int owner =
                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                            key, maxParallelism, task.getNumberOfParallelSubtasks());
            if (owner == task.getIndexOfThisSubtask()) {
                setCurrentKey(key);
                catchingUp.catchUp(key);
            }
        }
    }
}
