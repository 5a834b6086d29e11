package dev.piper.core.control;

/**
 * One message of the control stream: a spec's text, not yet parsed, and where it came from.
 *
 * @param source where the message came from, for the status output: {@code topic/partition@offset}
 *     for the control topic, the file's path for a control directory
 * @param text the spec's JSON text as published
 * @param problem why the message could not be read (then {@code text} is empty), or empty
 */
public record ControlMessage(String source, byte[] text, String problem) {

    /** A message read without a problem. */
    public ControlMessage(String source, byte[] text) {
        this(source, text, "");
    }

    /** A message that could not be read, for the status. */
    public static ControlMessage unreadable(String source, String problem) {
        return new ControlMessage(source, new byte[0], problem);
    }
}
