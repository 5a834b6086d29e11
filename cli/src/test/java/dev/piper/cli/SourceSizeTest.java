package dev.piper.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The size limits of docs/DESIGN.md ("Where a change lands"), checked on the main sources of every
 * module: no class file over 700 lines, no method or constructor over 80, but for the decoders' hot
 * loops named here, which stay whole because splitting them costs their throughput. A module's
 * share of the main lines stays at most 25%, and {@code connectors} (Flink's sources and sinks
 * only; the rest is in plain-Java modules, as ArchitectureTest keeps it) under 8,000 lines.
 *
 * <p>Methods are found in the sources as google-java-format lays them out (spotless checks it): a
 * declaration at a member's indentation whose body opens at the end of its line, closed by a brace
 * at the same indentation.
 */
class SourceSizeTest {

    static final int MAX_CLASS_LINES = 700;
    static final int MAX_METHOD_LINES = 80;
    static final double MAX_MODULE_SHARE = 0.25;
    static final int MAX_CONNECTORS_LINES = 8_000;

    /** Classes allowed past {@link #MAX_CLASS_LINES}: the text decoder and its fast paths. */
    static final Set<String> LONG_CLASSES = Set.of("CriteoDecoder");

    /** Hot loops allowed past {@link #MAX_METHOD_LINES}, as {@code Class.method}. */
    static final Set<String> HOT_LOOPS =
            Set.of(
                    "AvroFlat.read",
                    "CriteoDecoder.decode",
                    "CriteoDecoder.fastPath",
                    "CriteoDecoder.decodeLine",
                    "CsvEventDecoder.decode",
                    "CsvEventDecoder.split",
                    "RowGroupBlocks.read",
                    "RowGroupBlocks.readList");

    /** A declaration's line: modifiers and a type, then the method's name and its parenthesis. */
    private static final Pattern DECLARATION =
            Pattern.compile("^((?: {4})+)(?:[\\w<>\\[\\], .?@]+\\s)?(\\w+)\\s*\\(");

    /** A type's declaration (a record's components are in parentheses too). */
    private static final Pattern TYPE = Pattern.compile("\\b(class|record|interface|enum)\\b");

    private static final Set<String> NOT_A_NAME =
            Set.of("if", "for", "while", "switch", "catch", "synchronized", "return", "new", "try");

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noClassIsLongerThanItsLimit() {
        List<String> over = new ArrayList<>();
        for (Path file : mainSources()) {
            int lines = lines(file).size();
            String name = file.getFileName().toString().replace(".java", "");
            if (lines > MAX_CLASS_LINES && !LONG_CLASSES.contains(name)) {
                over.add(ROOT.relativize(file) + ": " + lines + " lines");
            }
        }
        assertEquals(List.of(), over, "classes over " + MAX_CLASS_LINES + " lines");
    }

    @Test
    void noMethodIsLongerThanItsLimit() {
        List<String> over = new ArrayList<>();
        int methods = 0;
        for (Path file : mainSources()) {
            String className = file.getFileName().toString().replace(".java", "");
            for (Method m : methods(lines(file))) {
                methods++;
                if (m.lines() > MAX_METHOD_LINES
                        && !HOT_LOOPS.contains(className + "." + m.name())) {
                    over.add(
                            ROOT.relativize(file)
                                    + ":"
                                    + m.line()
                                    + " "
                                    + m.name()
                                    + ": "
                                    + m.lines()
                                    + " lines");
                }
            }
        }
        assertTrue(methods > 1000, "found only " + methods + " methods: is the scan broken?");
        assertEquals(List.of(), over, "methods over " + MAX_METHOD_LINES + " lines");
    }

    @Test
    void noModuleHoldsMoreThanItsShare() {
        Map<String, Integer> byModule = new TreeMap<>();
        int total = 0;
        for (Path file : mainSources()) {
            int lines = lines(file).size();
            byModule.merge(ROOT.relativize(file).getName(0).toString(), lines, Integer::sum);
            total += lines;
        }
        for (Map.Entry<String, Integer> e : byModule.entrySet()) {
            double share = e.getValue() / (double) total;
            assertTrue(
                    share <= MAX_MODULE_SHARE,
                    e.getKey() + " holds " + Math.round(share * 100) + "% of main lines");
        }
        assertTrue(
                byModule.get("connectors") < MAX_CONNECTORS_LINES,
                "connectors holds " + byModule.get("connectors") + " main lines");
    }

    @Test
    void theScanFindsMethodsAsFormatted() {
        List<String> source =
                List.of(
                        "class A {",
                        "    private static final int[] X = {1, 2};",
                        "    A() {}",
                        "",
                        "    public static <T> List<T> copy(",
                        "            List<T> in, int n) {",
                        "        if (n > 0) {",
                        "            return in;",
                        "        }",
                        "        return List.of();",
                        "    }",
                        "",
                        "    abstract void later(int x);",
                        "",
                        "    record R(int x) {",
                        "        R {",
                        "        }",
                        "    }",
                        "",
                        "    static final class B {",
                        "        void inner() {",
                        "            run(() -> {",
                        "            });",
                        "        }",
                        "    }",
                        "}");
        assertEquals(
                List.of(new Method("copy", 5, 7), new Method("inner", 21, 4)), methods(source));
    }

    record Method(String name, int line, int lines) {}

    /** The methods and constructors of a source, with the line each starts on and its length. */
    static List<Method> methods(List<String> lines) {
        List<Method> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = DECLARATION.matcher(lines.get(i));
            if (!m.find() || NOT_A_NAME.contains(m.group(2)) || isEnumConstant(m.group(2))) {
                continue;
            }
            String head = lines.get(i).substring(0, m.end(2));
            if (head.contains("=") || head.contains("\"") || TYPE.matcher(head).find()) {
                continue;
            }
            int open = i;
            while (open < lines.size()
                    && !lines.get(open).endsWith("{")
                    && !lines.get(open).endsWith(";")
                    && !lines.get(open).endsWith("}")) {
                open++;
            }
            if (open == lines.size() || !lines.get(open).endsWith("{")) {
                continue; // abstract, or a body on one line
            }
            String close = m.group(1) + "}";
            int end = open + 1;
            while (end < lines.size() && !lines.get(end).equals(close)) {
                end++;
            }
            out.add(new Method(m.group(2), i + 1, end - i + 1));
            i = end;
        }
        return out;
    }

    private static boolean isEnumConstant(String name) {
        return name.equals(name.toUpperCase(Locale.ROOT));
    }

    static List<Path> mainSources() {
        try (Stream<Path> modules = Files.list(ROOT)) {
            List<Path> files = new ArrayList<>();
            for (Path module : modules.sorted().toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> walk = Files.walk(main)) {
                        walk.filter(p -> p.toString().endsWith(".java"))
                                .sorted()
                                .forEach(files::add);
                    }
                }
            }
            assertTrue(files.size() > 100, "found " + files.size() + " sources under " + ROOT);
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
