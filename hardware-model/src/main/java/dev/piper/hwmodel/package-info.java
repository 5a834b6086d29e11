/**
 * The hardware cost model: per-column FPGA (PIPER) and SmartSSD (PreSto) predictions from measured
 * CPU cost. Plain Java, no Flink dependency; the Flink operator that wraps it lives in the job
 * module. Filled in by the hardware-model issue.
 */
package dev.piper.hwmodel;
