package dev.piper.connectors.report;

/** File names of the cost report in a batch output directory. */
public final class ReportFiles {

    /** The whole run's report (the last line of {@link #INTERVALS}, pretty-printed). */
    public static final String REPORT = "report.json";

    /** Every report in order, one JSON object per line: the intervals, then the run's. */
    public static final String INTERVALS = "reports.jsonl";

    /** The whole run's report as a self-contained page (inline SVG, no network). */
    public static final String HTML = "report.html";

    private ReportFiles() {}
}
