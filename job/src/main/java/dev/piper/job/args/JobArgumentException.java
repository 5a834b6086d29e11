package dev.piper.job.args;

/**
 * A job's argument is wrong: the message is one line that names the option and says why, as the
 * command line prints it ({@code --block-bytes: must be between ...}).
 */
public final class JobArgumentException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public JobArgumentException(String message) {
        super(message);
    }

    /** {@code option}'s value is wrong: {@code "--option: why"}. */
    public static JobArgumentException of(String option, String why) {
        return new JobArgumentException(option + ": " + why);
    }
}
