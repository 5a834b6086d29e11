package dev.piper.operators.block;

/**
 * The row-wise part of a decoded block: labels and dense values of its valid rows, and the dead
 * letters of its rejected lines. Every line of the block is one or the other: {@code lines == rows
 * + deadLetters.length}.
 *
 * @param seq the block's sequence number
 * @param lines number of input lines in the block
 * @param rows number of valid rows
 * @param labelDense row-major label then dense values, {@code rows * (1 + dense columns)} ints
 * @param deadLetters the rejected lines, in line order
 */
public record DenseChunk(
        long seq, int lines, int rows, int[] labelDense, DeadLetter[] deadLetters) {}
