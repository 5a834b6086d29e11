package dev.piper.pipeline.join;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * A spec's {@code labels} section: the pipeline's input is impressions, joined with the actions of
 * one or more streams before anything else reads them ({@code docs/SPECS.md}, "Labels that arrive
 * later"). The join's outcome is the impression with an object {@code labels} added ({@link
 * LabelFields}), which {@code input.fields} maps to columns like any other field.
 *
 * @param key the path of the impressions' join key ({@code input.key})
 * @param join the join's settings
 * @param sources per action stream, in {@code join.streams()}'s order, where its records come from
 */
public record LabelSpec(String key, JoinSettings join, List<ActionSource> sources)
        implements Serializable {

    public LabelSpec {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(join, "join");
        sources = List.copyOf(sources);
        if (sources.size() != join.streams().size()) {
            throw new IllegalArgumentException(
                    sources.size() + " sources for " + join.streams().size() + " action streams");
        }
    }

    /** The index of the stream named {@code name}, or -1. */
    public int stream(String name) {
        for (int s = 0; s < join.streams().size(); s++) {
            if (join.streams().get(s).name().equals(name)) {
                return s;
            }
        }
        return -1;
    }

    /** The streams' names, in order. */
    public List<String> streamNames() {
        return join.streams().stream().map(ActionStream::name).toList();
    }
}
