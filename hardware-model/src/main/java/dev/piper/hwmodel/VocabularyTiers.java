package dev.piper.hwmodel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which vocabularies fit on chip (COMBINING.md pitfall 5): a share of the device's SRAM holds
 * vocabulary tables, assigned smallest table first across all columns; the rest go off chip. So one
 * column's growth can move another (larger) one off chip in the next report.
 */
public final class VocabularyTiers {

    private VocabularyTiers() {}

    /**
     * The tier of each column's vocabulary (null for a column without one), in order, with {@code
     * budgetBytes} of on-chip memory for all of them.
     */
    public static List<Tier> assignColumns(List<ColumnWork> columns, double budgetBytes) {
        List<Integer> withVocab = new ArrayList<>();
        List<Double> bytes = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).hasVocabulary()) {
                withVocab.add(i);
                bytes.add(columns.get(i).vocabulary().bytes());
            }
        }
        List<Tier> assigned = assign(bytes, budgetBytes);
        List<Tier> tiers = new ArrayList<>(java.util.Collections.nCopies(columns.size(), null));
        for (int k = 0; k < withVocab.size(); k++) {
            tiers.set(withVocab.get(k), assigned.get(k));
        }
        return tiers;
    }

    /**
     * The tier of each table, in the order given.
     *
     * @param tableBytes each vocabulary's size on the device
     * @param budgetBytes the SRAM given to vocabularies
     */
    public static List<Tier> assign(List<Double> tableBytes, double budgetBytes) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < tableBytes.size(); i++) {
            order.add(i);
        }
        order.sort(
                Comparator.comparingDouble((Integer i) -> tableBytes.get(i)).thenComparing(i -> i));
        List<Tier> tiers = new ArrayList<>(tableBytes.size());
        for (int i = 0; i < tableBytes.size(); i++) {
            tiers.add(Tier.OFFCHIP);
        }
        double left = budgetBytes;
        for (int i : order) {
            double b = tableBytes.get(i);
            if (b > left) {
                break; // smallest first: nothing larger fits either
            }
            left -= b;
            tiers.set(i, Tier.ONCHIP);
        }
        return tiers;
    }
}
