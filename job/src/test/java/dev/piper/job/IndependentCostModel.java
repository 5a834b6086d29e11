package dev.piper.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The papers' arithmetic written again from {@code shared/hwmodel/PARAMS.md} and COMBINING.md's
 * formulas, apart from {@code hardware-model}, and fed only what a report states (each column's
 * values, input bytes, chain and vocabulary table bytes; the devices' vocabulary budgets): the
 * check that the report prices each column as the papers do.
 */
final class IndependentCostModel {

    private IndependentCostModel() {}

    /** Each column's FPGA seconds: P2's MiniPipe at 200 MHz, 64-byte beats, 4 B/cycle decoder. */
    static double[] fpgaSeconds(JsonNode report) {
        JsonNode columns = report.get("columns");
        boolean[] onChip = onChip(columns, report.get("defaults").get("fpga_vocabulary_bytes"));
        double f = 200e6;
        double[] out = new double[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            JsonNode c = columns.get(i);
            long values = c.get("values").asLong();
            double decode = c.get("input_bytes").asLong() / 4.0 / f;
            List<String> ops = ops(c);
            boolean vocab = ops.contains("genvocab");
            double total = 0;
            for (int pass = 0; pass < (vocab ? 2 : 1); pass++) {
                double slowest = decode;
                for (String op : ops) {
                    if ((op.equals("genvocab") && pass == 1)
                            || (op.equals("applyvocab") && pass == 0)) {
                        continue;
                    }
                    int width = op.equals("hex2int") ? 8 : 4;
                    long beats = (values * width + 63) / 64;
                    double ii =
                            switch (op) {
                                case "fill_missing" -> 0; // P1 §3.1: merged into decode
                                case "genvocab" -> onChip[i] ? 2 : 4.69; // P2 §3.4.2, fitted
                                case "applyvocab" -> onChip[i] ? 1 : 6.46;
                                default -> 1;
                            };
                    slowest = Math.max(slowest, beats * ii / f);
                }
                total += slowest;
            }
            out[i] = total;
        }
        return out;
    }

    /** Each column's SmartSSD seconds: PreSto's units at 223 MHz, P2P 2.36 GB/s, 4 B/cycle. */
    static double[] smartSsdSeconds(JsonNode report) {
        JsonNode columns = report.get("columns");
        boolean[] onChip = onChip(columns, report.get("defaults").get("smartssd_vocabulary_bytes"));
        double f = 223e6;
        double[] out = new double[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            JsonNode c = columns.get(i);
            long values = c.get("values").asLong();
            long bytes = c.get("input_bytes").asLong();
            double io = Math.max(bytes / 2.36e9, bytes / 4.0 / f);
            List<String> ops = ops(c);
            boolean vocab = ops.contains("genvocab");
            double total = 0;
            for (int pass = 0; pass < (vocab ? 2 : 1); pass++) {
                double slowest = io;
                for (String op : ops) {
                    double ii =
                            switch (op) {
                                case "fill_missing" -> 0;
                                case "genvocab" -> pass == 0 ? (onChip[i] ? 2 : 6) : 0;
                                case "applyvocab" -> pass == 1 ? (onChip[i] ? 1 : 6) : 0;
                                default -> 1;
                            };
                    slowest = Math.max(slowest, values * ii / f);
                }
                total += slowest;
            }
            out[i] = total;
        }
        return out;
    }

    private static List<String> ops(JsonNode column) {
        List<String> ops = new ArrayList<>();
        column.get("ops").forEach(o -> ops.add(o.asText()));
        return ops;
    }

    /** Smallest table first into {@code budget} bytes (COMBINING.md pitfall 5). */
    private static boolean[] onChip(JsonNode columns, JsonNode budget) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).has("vocab_table_bytes")) {
                order.add(i);
            }
        }
        order.sort(Comparator.comparingLong(i -> columns.get(i).get("vocab_table_bytes").asLong()));
        boolean[] on = new boolean[columns.size()];
        double left = budget.asDouble();
        for (int i : order) {
            long b = columns.get(i).get("vocab_table_bytes").asLong();
            if (b > left) {
                break;
            }
            left -= b;
            on[i] = true;
        }
        return on;
    }
}
