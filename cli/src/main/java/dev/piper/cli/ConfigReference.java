package dev.piper.cli;

import dev.piper.job.HotlineOptions;
import dev.piper.job.PiperOptions;
import dev.piper.job.ReportOptions;
import dev.piper.job.StreamOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.HtmlFormatter;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The configuration reference of docs/OPERATIONS.md, generated from the code: every option of the
 * commands that run or deploy a job (from their picocli model) and every {@code piper.*} Flink
 * option (from the options classes). OperationsDocTest keeps the document equal to it.
 */
public final class ConfigReference {

    /** The commands whose options the reference lists, in this order. */
    static final List<String> COMMANDS =
            List.of("preprocess", "stream", "cluster start", "submit", "job stop");

    /** The classes whose {@code ConfigOption} constants the reference lists. */
    static final List<Class<?>> OPTION_CLASSES =
            List.of(
                    PiperOptions.class,
                    StreamOptions.class,
                    ReportOptions.class,
                    HotlineOptions.class);

    private ConfigReference() {}

    /** The reference as Markdown. */
    public static String markdown() {
        StringBuilder md = new StringBuilder();
        CommandLine piper = PiperCli.configure(new CommandLine(new PiperCli()));
        for (String command : COMMANDS) {
            CommandLine cmd = piper;
            for (String word : command.split(" ")) {
                cmd = cmd.getSubcommands().get(word);
            }
            md.append("### `piper ").append(command).append("`\n\n");
            md.append("| option | default | description |\n|---|---|---|\n");
            for (OptionSpec o : cmd.getCommandSpec().options()) {
                if (o.hidden()
                        || o.longestName().equals("--help")
                        || o.longestName().equals("--version")) {
                    continue;
                }
                String name = String.join(", ", o.names());
                String label = o.typeInfo().isBoolean() ? "" : " " + o.paramLabel();
                md.append("| `")
                        .append(name)
                        .append(label)
                        .append("` | ")
                        .append(o.defaultValue() == null ? "" : "`" + o.defaultValue() + "`")
                        .append(" | ")
                        .append(cell(String.join(" ", o.description())))
                        .append(" |\n");
            }
            md.append('\n');
        }
        md.append("### `piper.*` job options\n\n");
        md.append(
                "What the commands above set in the job's configuration; any of them can also be"
                        + " given with `--flink-conf KEY=VALUE`, or in a cluster's configuration.\n\n");
        md.append("| key | type | default | description |\n|---|---|---|---|\n");
        HtmlFormatter html = new HtmlFormatter();
        for (Class<?> c : OPTION_CLASSES) {
            for (Field f : c.getFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || f.getType() != ConfigOption.class) {
                    continue;
                }
                ConfigOption<?> option;
                try {
                    option = (ConfigOption<?>) f.get(null);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                md.append("| `")
                        .append(option.key())
                        .append("` | ")
                        .append(typeName(f.getGenericType()))
                        .append(" | ")
                        .append(
                                option.hasDefaultValue()
                                        ? "`" + value(option.defaultValue()) + "`"
                                        : "")
                        .append(" | ")
                        .append(cell(html.format(option.description())))
                        .append(" |\n");
            }
        }
        return md.toString();
    }

    private static String value(Object v) {
        return v instanceof Duration d ? TimeUtils.formatWithHighestUnit(d) : String.valueOf(v);
    }

    private static String typeName(Type t) {
        if (t instanceof ParameterizedType p) {
            Type arg = p.getActualTypeArguments()[0];
            return arg instanceof Class<?> c ? c.getSimpleName() : arg.getTypeName();
        }
        return "?";
    }

    /** Text for a Markdown table cell. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ").strip();
    }
}
