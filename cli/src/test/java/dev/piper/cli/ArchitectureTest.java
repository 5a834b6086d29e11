package dev.piper.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The module map of docs/DESIGN.md, checked on the main classes of every module (this module's test
 * classpath holds them all): the modules depend one way, no package cycle, the plain-Java modules
 * stay free of Flink, connectors holds only what Flink's sources and sinks need, only the command
 * line uses picocli.
 */
@AnalyzeClasses(packages = "dev.piper", importOptions = ArchitectureTest.MainClassesOnly.class)
class ArchitectureTest {

    /** Main classes only: not test classes, from directories or from the modules' test jars. */
    static final class MainClassesOnly implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("/test-classes/") && !location.contains("-tests.jar");
        }
    }

    /** One layer a module; each may use only those below it. */
    @ArchTest
    static final ArchRule modulesDependOneWay =
            layeredArchitecture()
                    .consideringOnlyDependenciesInLayers()
                    .layer("pipeline")
                    .definedBy("dev.piper.pipeline..")
                    .layer("hardware-model")
                    .definedBy("dev.piper.hwmodel..")
                    .layer("state")
                    .definedBy("dev.piper.state..")
                    .layer("core")
                    .definedBy("dev.piper.core..")
                    .layer("output")
                    .definedBy("dev.piper.output..")
                    .layer("feed")
                    .definedBy("dev.piper.feed..")
                    .layer("convert")
                    .definedBy("dev.piper.convert..")
                    .layer("operators")
                    .definedBy("dev.piper.operators..")
                    .layer("connectors")
                    .definedBy("dev.piper.connectors..")
                    .layer("job")
                    .definedBy("dev.piper.job..")
                    .layer("benchmarks")
                    .definedBy("dev.piper.benchmarks..")
                    .layer("cli")
                    .definedBy("dev.piper.cli..")
                    .whereLayer("cli")
                    .mayNotBeAccessedByAnyLayer()
                    // the command line finds the bench program at run time (ProgramCommands)
                    .whereLayer("benchmarks")
                    .mayNotBeAccessedByAnyLayer()
                    .whereLayer("job")
                    .mayOnlyBeAccessedByLayers("benchmarks", "cli")
                    .whereLayer("connectors")
                    .mayOnlyBeAccessedByLayers("job", "benchmarks", "cli")
                    .whereLayer("operators")
                    .mayOnlyBeAccessedByLayers("connectors", "job", "benchmarks", "cli")
                    .whereLayer("convert")
                    .mayOnlyBeAccessedByLayers("benchmarks", "cli")
                    .whereLayer("feed")
                    .mayOnlyBeAccessedByLayers("connectors", "job", "benchmarks", "cli")
                    .whereLayer("output")
                    .mayOnlyBeAccessedByLayers(
                            "feed", "convert", "connectors", "job", "benchmarks", "cli")
                    .whereLayer("core")
                    .mayOnlyBeAccessedByLayers(
                            "output",
                            "feed",
                            "convert",
                            "operators",
                            "connectors",
                            "job",
                            "benchmarks",
                            "cli")
                    .whereLayer("state")
                    .mayOnlyBeAccessedByLayers(
                            "output", "operators", "connectors", "job", "benchmarks", "cli")
                    .whereLayer("hardware-model")
                    .mayOnlyBeAccessedByLayers(
                            "core",
                            "output",
                            "feed",
                            "convert",
                            "operators",
                            "connectors",
                            "job",
                            "benchmarks",
                            "cli")
                    .whereLayer("pipeline")
                    .mayOnlyBeAccessedByLayers(
                            "state",
                            "core",
                            "output",
                            "feed",
                            "convert",
                            "operators",
                            "connectors",
                            "job",
                            "benchmarks",
                            "cli");

    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("dev.piper.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule thePlainJavaModulesAreFreeOfFlink =
            noClasses()
                    .that()
                    .resideInAnyPackage(
                            "dev.piper.pipeline..",
                            "dev.piper.hwmodel..",
                            "dev.piper.core..",
                            "dev.piper.output..",
                            "dev.piper.feed..",
                            "dev.piper.convert..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.apache.flink..");

    /**
     * {@code connectors} holds Flink's sources and sinks and their readers only: each of its
     * classes uses Flink, or is used by one that does (a source's reader, a split's record),
     * directly or through other classes of {@code connectors}. A class that nothing Flink-bound in
     * it needs belongs in a plain-Java module (output, feed, convert, core).
     */
    @ArchTest
    static final ArchRule connectorsHoldOnlyWhatFlinksSourcesAndSinksNeed =
            classes()
                    .that()
                    .resideInAnyPackage("dev.piper.connectors..")
                    .should(new PartOfAFlinkConnector());

    /** The condition of {@link #connectorsHoldOnlyWhatFlinksSourcesAndSinksNeed}. */
    static final class PartOfAFlinkConnector extends ArchCondition<JavaClass> {

        private final Set<String> reached = new HashSet<>();

        PartOfAFlinkConnector() {
            super("use Flink or be used by a class of connectors that does");
        }

        /** A class and its nested classes are one: the top-level class's name. */
        private static String topLevel(JavaClass c) {
            String name = c.getName();
            int nested = name.indexOf('$');
            return nested < 0 ? name : name.substring(0, nested);
        }

        private static boolean inConnectors(JavaClass c) {
            return c.getPackageName().startsWith("dev.piper.connectors");
        }

        @Override
        public void init(Collection<JavaClass> all) {
            Map<String, Set<String>> uses = new HashMap<>();
            Deque<String> todo = new ArrayDeque<>();
            for (JavaClass c : all) {
                if (!inConnectors(c)) {
                    continue;
                }
                Set<String> used = uses.computeIfAbsent(topLevel(c), k -> new HashSet<>());
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    if (target.getPackageName().startsWith("org.apache.flink")) {
                        todo.add(topLevel(c));
                    } else if (inConnectors(target)) {
                        used.add(topLevel(target));
                    }
                }
            }
            while (!todo.isEmpty()) {
                String c = todo.poll();
                if (reached.add(c)) {
                    todo.addAll(uses.getOrDefault(c, Set.of()));
                }
            }
        }

        @Override
        public void check(JavaClass c, ConditionEvents events) {
            if (!reached.contains(topLevel(c))) {
                events.add(
                        SimpleConditionEvent.violated(
                                c,
                                c.getName()
                                        + " neither uses Flink nor is used by a class of"
                                        + " connectors that does: it belongs in a plain-Java"
                                        + " module"));
            }
        }
    }

    @ArchTest
    static final ArchRule onlyTheCommandLineUsesPicocli =
            noClasses()
                    .that()
                    .resideOutsideOfPackage("dev.piper.cli..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("picocli..");

    @ArchTest
    static final ArchRule operatorsNeverUseConnectorsOrTheCommandLine =
            noClasses()
                    .that()
                    .resideInAnyPackage("dev.piper.operators..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(
                            "dev.piper.connectors..", "dev.piper.job..", "dev.piper.cli..");

    @ArchTest
    static final ArchRule theJobGraphsDoNotParseCommandLines =
            noClasses()
                    .that()
                    .resideInAnyPackage("dev.piper.job..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("dev.piper.cli..", "dev.piper.benchmarks..");

    /**
     * Inside {@code job}, the programs and the job jar's entry class ({@code job.launch}) sit above
     * the job graphs ({@code dev.piper.job}), and an option's declaration and its parser ({@code
     * job.args}) use no piper code at all: the command line and the job jar share them.
     */
    @ArchTest
    static final ArchRule theJobGraphsDoNotReachTheirPrograms =
            noClasses()
                    .that()
                    .resideInAPackage("dev.piper.job")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("dev.piper.job.launch..");

    @ArchTest
    static final ArchRule jobOptionsUseNoPiperCode =
            noClasses()
                    .that()
                    .resideInAPackage("dev.piper.job.args..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(
                            "dev.piper.pipeline..",
                            "dev.piper.hwmodel..",
                            "dev.piper.state..",
                            "dev.piper.core..",
                            "dev.piper.output..",
                            "dev.piper.feed..",
                            "dev.piper.convert..",
                            "dev.piper.operators..",
                            "dev.piper.connectors..",
                            "dev.piper.job",
                            "dev.piper.job.launch..");
}
