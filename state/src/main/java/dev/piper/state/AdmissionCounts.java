package dev.piper.state;

import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;

/**
 * The occurrences of keys a {@link Vocabulary} has not admitted yet, under a frequency threshold
 * ({@code min_count}): a fastutil {@code Long2IntOpenHashMap}, about 16 bytes a key at its default
 * load, created at the first key counted and dropped when the vocabulary is full.
 */
final class AdmissionCounts {

    private Long2IntOpenHashMap map;

    /** Counts one occurrence of an unadmitted key; true when it reaches {@code minCount}. */
    boolean admits(long key, int minCount) {
        if (minCount <= 1) {
            return true;
        }
        int seen = map().addTo(key, 1) + 1;
        if (seen < minCount) {
            return false;
        }
        map.remove(key);
        return true;
    }

    /**
     * Counts an occurrence of a key for which there is no room yet (TTL: nothing has expired),
     * short of admitting it: at its next occurrence with room it is admitted.
     */
    void note(long key, int minCount) {
        if (minCount <= 1) {
            return;
        }
        int seen = map().get(key);
        if (seen < minCount - 1) {
            map.put(key, seen + 1);
        }
    }

    /** Forgets every count (the vocabulary is full: no key will be admitted any more). */
    void drop() {
        map = null;
    }

    int size() {
        return map == null ? 0 : map.size();
    }

    int get(long key) {
        return map == null ? 0 : map.get(key);
    }

    void put(long key, int count) {
        map().put(key, count);
    }

    void forEach(Vocabulary.CountVisitor visitor) {
        if (map == null) {
            return;
        }
        for (var it = map.long2IntEntrySet().fastIterator(); it.hasNext(); ) {
            Long2IntMap.Entry e = it.next();
            visitor.accept(e.getLongKey(), e.getIntValue());
        }
    }

    AdmissionCounts copy() {
        AdmissionCounts c = new AdmissionCounts();
        c.map = map == null ? null : map.clone();
        return c;
    }

    /** The same keys with the same counts. */
    boolean sameAs(AdmissionCounts other) {
        return size() == other.size() && (size() == 0 || map.equals(other.map));
    }

    private Long2IntOpenHashMap map() {
        if (map == null) {
            map = new Long2IntOpenHashMap();
        }
        return map;
    }
}
