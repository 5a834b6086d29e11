package dev.piper.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The module map of docs/DESIGN.md, checked on the main classes of every module (this module's test
 * classpath holds them all): the modules depend one way, no package cycle, the plain-Java modules
 * stay free of Flink, only the command line uses picocli.
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
                    .whereLayer("core")
                    .mayOnlyBeAccessedByLayers(
                            "operators", "connectors", "job", "benchmarks", "cli")
                    .whereLayer("state")
                    .mayOnlyBeAccessedByLayers(
                            "operators", "connectors", "job", "benchmarks", "cli")
                    .whereLayer("hardware-model")
                    .mayOnlyBeAccessedByLayers(
                            "core", "operators", "connectors", "job", "benchmarks", "cli")
                    .whereLayer("pipeline")
                    .mayOnlyBeAccessedByLayers(
                            "state", "core", "operators", "connectors", "job", "benchmarks", "cli");

    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("dev.piper.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule pipelineHardwareModelAndCoreAreFreeOfFlink =
            noClasses()
                    .that()
                    .resideInAnyPackage(
                            "dev.piper.pipeline..", "dev.piper.hwmodel..", "dev.piper.core..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.apache.flink..");

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
                            "dev.piper.operators..",
                            "dev.piper.connectors..",
                            "dev.piper.job",
                            "dev.piper.job.launch..");
}
