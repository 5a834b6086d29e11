package dev.piper.cli;

import dev.piper.pipeline.layout.RowLayout;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --dense N --sparse M}: the columns of text lines in another layout than Criteo's (a label,
 * I1..IN, C1..CM), for the commands that read or write lines without a spec. A spec names its
 * layout as {@code input.dense} and {@code input.sparse}.
 */
final class LayoutOptions {

    @Option(
            names = "--dense",
            defaultValue = "13",
            paramLabel = "N",
            description =
                    "Dense columns I1..IN per line (default: ${DEFAULT-VALUE}, Criteo's; PreSto's"
                            + " production mixes RM2-RM5 have 504).")
    int dense;

    @Option(
            names = "--sparse",
            defaultValue = "26",
            paramLabel = "M",
            description =
                    "Categorical columns C1..CM per line (default: ${DEFAULT-VALUE}, Criteo's;"
                            + " RM2-RM5 have 42).")
    int sparse;

    /**
     * Refuses {@code --dense} and {@code --sparse} when something else sets the layout.
     *
     * @param instead what sets it, as the message continues: {@code --dense cannot be combined with
     *     <instead>}
     * @throws ParameterException naming the option given
     */
    static void refuseNextTo(CommandLine cmd, String instead) {
        for (String option : List.of("--dense", "--sparse")) {
            if (cmd.getParseResult().hasMatchedOption(option)) {
                throw new ParameterException(cmd, option + " cannot be combined with " + instead);
            }
        }
    }

    /**
     * The layout the options name.
     *
     * @throws ParameterException naming the option out of range
     */
    RowLayout layout(CommandLine cmd) {
        if (dense < 1 || dense > RowLayout.MAX_DENSE) {
            throw new ParameterException(
                    cmd, "--dense: must be from 1 to " + RowLayout.MAX_DENSE + ", not " + dense);
        }
        if (sparse < 1 || sparse > RowLayout.MAX_SPARSE) {
            throw new ParameterException(
                    cmd, "--sparse: must be from 1 to " + RowLayout.MAX_SPARSE + ", not " + sparse);
        }
        return new RowLayout(dense, sparse);
    }
}
