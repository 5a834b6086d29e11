package dev.piper.core.join;

/**
 * A record of the stream's label join as read from its topic: one to join ({@link JoinInput}) or
 * one that cannot ({@link JoinDeadLetter}).
 */
public sealed interface JoinRead permits JoinInput, JoinDeadLetter {}
