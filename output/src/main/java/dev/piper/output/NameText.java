package dev.piper.output;

/**
 * The original string of a hash64 key as a vocabulary line holds it (the third field of {@code
 * vocab/Cj.tsv} and of the vocabulary records, the fifth of an assignments line): UTF-8, with a
 * backslash, tab, line feed and carriage return written {@code \\}, {@code \t}, {@code \n}, {@code
 * \r}, so a line stays one line of tab-separated fields and the string comes back exactly.
 */
public final class NameText {

    private NameText() {}

    /** Appends {@code name}, escaped, to {@code out}. */
    public static void append(StringBuilder out, String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            switch (ch) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(ch);
            }
        }
    }

    /** The string an escaped field holds. */
    public static String parse(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char ch = field.charAt(i);
            if (ch != '\\' || i + 1 == field.length()) {
                out.append(ch);
                continue;
            }
            char next = field.charAt(++i);
            out.append(
                    switch (next) {
                        case 't' -> '\t';
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        default -> next;
                    });
        }
        return out.toString();
    }
}
