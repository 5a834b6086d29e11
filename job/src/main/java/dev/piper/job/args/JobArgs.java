package dev.piper.job.args;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

/**
 * The arguments of a job, as given: each declared {@link JobOption} with its values, read typed; a
 * value that does not convert is refused naming its option. The job jar parses its program
 * arguments with {@link #parse}; the command line, which parses with picocli for its help and
 * completion, hands what matched to {@link #of}. Either way the job reads one model.
 */
public final class JobArgs {

    private final Map<String, JobOption> declared;
    private final Map<String, List<String>> given;

    private JobArgs(Collection<JobOption> options, Map<String, List<String>> given) {
        this.declared = new LinkedHashMap<>();
        for (JobOption o : options) {
            if (declared.put(o.name(), o) != null) {
                throw new IllegalArgumentException("option declared twice: " + o.name());
            }
        }
        for (String name : given.keySet()) {
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("not a declared option: " + name);
            }
        }
        this.given = Map.copyOf(given);
        for (JobOption o : options) {
            if (o.required() && !this.given.containsKey(o.name())) {
                throw new JobArgumentException("Missing required option: " + o.synopsis());
            }
        }
    }

    /**
     * The values already parsed (the command line's picocli result): option name to its values in
     * order, a flag's list holding {@code "true"}.
     *
     * @throws JobArgumentException for a required option that is missing
     */
    public static JobArgs of(Collection<JobOption> options, Map<String, List<String>> given) {
        return new JobArgs(options, given);
    }

    /**
     * Parses {@code args}: {@code --name value} or {@code --name=value} for an option with a value,
     * {@code --name} for a flag; no positional arguments.
     *
     * @throws JobArgumentException naming the first argument that is unknown, lacks its value, is
     *     repeated though it may not be, or is missing though required
     */
    public static JobArgs parse(Collection<JobOption> options, List<String> args) {
        Map<String, JobOption> byName = new LinkedHashMap<>();
        options.forEach(o -> byName.put(o.name(), o));
        Map<String, List<String>> given = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            JobOption option = byName.get(name);
            if (option == null) {
                throw new JobArgumentException(
                        arg.startsWith("-")
                                ? "Unknown option: '" + name + "'"
                                : "Unmatched argument at index " + i + ": '" + arg + "'");
            }
            String value;
            if (option.isFlag()) {
                if (eq >= 0) {
                    throw new JobArgumentException(name + " is a flag and takes no value");
                }
                value = "true";
            } else if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new JobArgumentException(
                        "Missing required parameter for option " + option.synopsis());
            }
            List<String> values = given.computeIfAbsent(name, n -> new ArrayList<>());
            if (!values.isEmpty() && !option.repeatable()) {
                throw new JobArgumentException(
                        "option " + option.synopsis() + " should be specified only once");
            }
            values.add(value);
        }
        return new JobArgs(options, given);
    }

    private JobOption option(String name) {
        JobOption o = declared.get(name);
        if (o == null) {
            throw new IllegalArgumentException("not a declared option: " + name);
        }
        return o;
    }

    /** Whether {@code name} was given (not only defaulted). */
    public boolean given(String name) {
        option(name);
        return given.containsKey(name);
    }

    /** Whether the flag {@code name} was given. */
    public boolean flag(String name) {
        return given(name);
    }

    /** The value given, else the default, else {@code null}. */
    public String string(String name) {
        JobOption o = option(name);
        List<String> values = given.get(name);
        return values == null ? o.defaultValue() : values.get(values.size() - 1);
    }

    /** Every value given, in order (a repeatable option). */
    public List<String> strings(String name) {
        option(name);
        return given.getOrDefault(name, List.of());
    }

    /** The value as a path, or {@code null}. */
    public Path path(String name) {
        String v = string(name);
        return v == null ? null : Path.of(v);
    }

    /** Every value as a path. */
    public List<Path> paths(String name) {
        return strings(name).stream().map(Path::of).toList();
    }

    /** The value as an int, or {@code null}. */
    public Integer integer(String name) {
        return number(name, Integer::valueOf, "an int");
    }

    /** The value as a long, or {@code null}. */
    public Long longValue(String name) {
        return number(name, Long::valueOf, "a long");
    }

    /** The value as a double, or {@code null}. */
    public Double decimal(String name) {
        return number(name, Double::valueOf, "a double");
    }

    private <T> T number(String name, Function<String, T> parse, String what) {
        String v = string(name);
        try {
            return v == null ? null : parse.apply(v.strip());
        } catch (NumberFormatException e) {
            throw invalid(name, v, what);
        }
    }

    /** The value as one of {@code type}'s constants (by name), or {@code null}. */
    public <E extends Enum<E>> E choice(String name, Class<E> type) {
        String v = string(name);
        if (v == null) {
            return null;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(v)) {
                return e;
            }
        }
        List<String> known = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            known.add(e.name());
        }
        throw new JobArgumentException(
                "Invalid value for option '"
                        + name
                        + "': expected one of "
                        + known
                        + " (case-sensitive) but was '"
                        + v
                        + "'");
    }

    /**
     * The value as a positive duration ({@code 5s}, {@code 500ms}; a bare number in {@code
     * bareUnit}, where that is not empty), or {@code null}.
     */
    public Duration duration(String name, String bareUnit) {
        String v = string(name);
        if (v == null) {
            return null;
        }
        String text = !bareUnit.isEmpty() && v.matches("[0-9]+") ? v + bareUnit : v;
        try {
            Duration d = TimeUtils.parseDuration(text);
            if (!d.isNegative() && !d.isZero()) {
                return d;
            }
        } catch (IllegalArgumentException e) {
            // refused below
        }
        throw JobArgumentException.of(
                name, "'" + v + "' is not a positive duration such as 5s or 500ms");
    }

    /** Every {@code KEY=VALUE} given, in order; a later key wins. */
    public Map<String, String> keyValues(String name) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String v : strings(name)) {
            int eq = v.indexOf('=');
            if (eq <= 0) {
                throw new JobArgumentException(
                        "Value for option '"
                                + name
                                + "' should be in KEY=VALUE format but was "
                                + v);
            }
            pairs.put(v.substring(0, eq), v.substring(eq + 1));
        }
        return pairs;
    }

    /**
     * The job settings of the options that name one ({@link JobOption#setting}), each set to the
     * value given; an option not given leaves its setting at the setting's default.
     *
     * @throws JobArgumentException naming the option whose value its setting cannot take
     */
    public Configuration settings() {
        Configuration conf = new Configuration();
        for (JobOption o : declared.values()) {
            if (o.setting() == null || !given.containsKey(o.name())) {
                continue;
            }
            String value = string(o.name());
            Configuration one = new Configuration();
            one.setString(o.setting().key(), value);
            try {
                one.get(o.setting());
            } catch (IllegalArgumentException e) {
                throw new JobArgumentException(
                        "Invalid value for option '"
                                + o.name()
                                + "': '"
                                + value
                                + "' ("
                                + rootMessage(e)
                                + ")");
            }
            conf.addAll(one);
        }
        return conf;
    }

    private static String rootMessage(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        return e.getMessage();
    }

    private static JobArgumentException invalid(String name, String value, String what) {
        return new JobArgumentException(
                "Invalid value for option '" + name + "': '" + value + "' is not " + what);
    }
}
