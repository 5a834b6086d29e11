/**
 * The hardware cost model: per-column FPGA (PIPER) and SmartSSD (PreSto) predictions from measured
 * CPU cost. Plain Java, no Flink dependency; the Flink operator that wraps it lives in the job
 * module.
 *
 * <p>So far: the PIPER designs as typed parameter sets with their provenance ({@link
 * dev.piper.hwmodel.Parameter}, {@link dev.piper.hwmodel.Provenance}): the network-attached
 * MiniPipe design of P2 ({@link dev.piper.hwmodel.MiniPipeDesign}: clock per MiniPipe count,
 * initiation intervals per operator and vocabulary tier, beats per column or row packing) and the
 * 32-bit stream design of P1 ({@link dev.piper.hwmodel.StreamDesign}), checked against the papers'
 * figures in {@code PaperReproductionTest}; a column's isolated FPGA time and a device's time bound
 * by its slowest shared resource ({@link dev.piper.hwmodel.FpgaModel}), vocabulary tiers ({@link
 * dev.piper.hwmodel.VocabularyTiers}), PreSto's SmartSSD ({@link dev.piper.hwmodel.SmartSsdModel}),
 * sizing, energy and RAP's exposed latency ({@link dev.piper.hwmodel.Sizing}). Every parameter and
 * formula comes from {@code shared/hwmodel/PARAMS.md} and {@code COMBINING.md}. Not yet: the job's
 * per-column measurement, the Flink operator and its reports.
 */
package dev.piper.hwmodel;
