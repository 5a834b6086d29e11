package dev.piper.operators.join;

import dev.piper.core.join.JoinInput;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.KeyJoin;
import dev.piper.pipeline.join.Position;
import java.util.HashMap;
import java.util.Map;

/**
 * One join key's state in the stream: its {@link KeyJoin} and, of the actions waiting there for the
 * watermark, the records as read (their dead letters keep their bytes). The operator works on it
 * and keeps it encoded ({@link JoinKeyCodec}) between records.
 */
public final class JoinKey {

    final KeyJoin<byte[]> join;
    final Map<Position, JoinInput> pending;

    JoinKey(KeyJoin<byte[]> join, Map<Position, JoinInput> pending) {
        this.join = join;
        this.pending = pending;
    }

    /** A key with nothing yet. */
    static JoinKey empty(JoinSettings settings) {
        return new JoinKey(new KeyJoin<>(settings), new HashMap<>());
    }
}
