package dev.piper.pipeline.spec;

import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.spec.PipelineSpec.Column;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks of a spec's column chains against its input section, which neither section can make
 * alone; problems go to the spec's.
 */
final class ColumnChecks {

    private ColumnChecks() {}

    /** hash64 reads named-field input's string ids; Criteo's text has hexadecimal ones. */
    static void idParsers(SpecParser spec, PipelineSpec.Input input, List<Column> columns) {
        if (input == null
                || columns == null
                || InputFormat.of(input.format()).map(InputFormat::namedFields).orElse(true)) {
            return;
        }
        List<String> hashing = new ArrayList<>();
        int at = -1;
        for (Column c : columns) {
            for (int i = 0; i < c.ops().size(); i++) {
                if (c.ops().get(i) instanceof Op.Hash64) {
                    hashing.add(c.name());
                    at = at < 0 ? i : at;
                }
            }
        }
        if (!hashing.isEmpty()) {
            spec.problem(
                    "columns." + hashing.get(0) + "[" + at + "]",
                    "hash64 reads the string ids of named-field input (json, csv, avro, protobuf); "
                            + input.format()
                            + " ids are hexadecimal (hex2int)"
                            + (hashing.size() > 1
                                    ? "; " + hashing.size() + " columns have hash64"
                                    : ""));
        }
    }

    /** A vocab's ttl in event time needs the rows' times: the input's {@code timestamp}. */
    static void eventTimeTtls(SpecParser spec, PipelineSpec.Input input, List<Column> columns) {
        if (input == null || columns == null || input.eventTime() != null) {
            return;
        }
        for (Column c : columns) {
            for (int i = 0; i < c.ops().size(); i++) {
                if (c.ops().get(i) instanceof Op.Vocab v && v.policy().ttlInEventTime()) {
                    spec.problem(
                            "columns." + c.name() + "[" + i + "]",
                            "vocab \"ttl\" is a span of event time, and the input has none: name"
                                    + " its time field in input.timestamp, or count the ttl in"
                                    + " rows");
                    return;
                }
            }
        }
    }
}
