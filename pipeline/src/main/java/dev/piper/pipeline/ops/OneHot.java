package dev.piper.pipeline.ops;

/**
 * One-hot encoding with the last category dropped (RAP's Onehot; "drop-last" as the issue names
 * it): a category {@code v} of {@code size} becomes {@code size - 1} values, 1 at position {@code
 * v} and 0 elsewhere, which is {@code torch.nn.functional.one_hot(v, size)[:-1]}; the last category
 * ({@code size - 1}) is the all-zero vector, so the columns stay linearly independent. A value
 * outside {@code [0, size)}, which torch refuses, is all zeros too: an unknown category, never a
 * failed row.
 */
public final class OneHot {

    /** The most categories: beyond, an embedding (a sparse column) is the better encoding. */
    public static final int MAX_SIZE = 4096;

    private final int size;

    /**
     * @throws IllegalArgumentException if {@code size} is not in {@code [2, MAX_SIZE]}
     */
    public OneHot(int size) {
        if (size < 2 || size > MAX_SIZE) {
            throw new IllegalArgumentException(
                    "onehot \"size\" must be from 2 to " + MAX_SIZE + ", not " + size);
        }
        this.size = size;
    }

    /** The number of values a category becomes: {@code size - 1}. */
    public int width() {
        return size - 1;
    }

    /** The position of {@code v}'s 1 among the {@link #width()} values, or -1 for none. */
    public int hot(int v) {
        return hot(v, size);
    }

    /** The position of {@code v}'s 1 among the {@code size - 1} values of onehot({@code size}). */
    public static int hot(int v, int size) {
        return v >= 0 && v < size - 1 ? v : -1;
    }

    /** Writes {@code v}'s {@link #width()} values to {@code out} from {@code at}. */
    public void encode(int v, int[] out, int at) {
        java.util.Arrays.fill(out, at, at + size - 1, 0);
        int hot = hot(v);
        if (hot >= 0) {
            out[at + hot] = 1;
        }
    }

    @Override
    public String toString() {
        return "onehot(" + size + ")";
    }
}
