package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import org.junit.jupiter.api.Test;

class ConsumedMetadataTest {

    @Test
    void theBuiltInSpecIsKnownWithTheSettingsTheRecordsCarry() {
        DecodeOptions dlrm =
                ConsumedMetadata.known(
                        "dlrm-criteo/1",
                        "max_ind_range=1000;pad_missing_fields=true;max_line_bytes=4096;"
                                + "max_raw_bytes=64");
        assertThat(dlrm).isNotNull();
        assertThat(dlrm.program().dlrmMaxIndRange()).hasValue(1000);
        assertThat(dlrm.padMissingFields()).isTrue();
        assertThat(dlrm.maxLineBytes()).isEqualTo(4096);
        assertThat(dlrm.maxRawBytes()).isEqualTo(64);
        // the records' chains fingerprint tells this DLRM from a spec of the same name and others
        assertThat(dlrm.program().fingerprint())
                .isEqualTo(ColumnProgram.dlrm(1000).fingerprint())
                .isNotEqualTo(ColumnProgram.dlrm(-1).fingerprint())
                .isNotEqualTo(SpecCompiler.program(Presets.named("rm1").spec()).fingerprint())
                .hasSize(16);
        // records of a stream before max_raw_bytes was in the parameters: the default
        DecodeOptions older =
                ConsumedMetadata.known(
                        "dlrm-criteo/1", "pad_missing_fields=false;max_line_bytes=65536");
        assertThat(older.program().dlrmMaxIndRange()).hasValue(-1);
        assertThat(older.maxRawBytes()).isEqualTo(DecodeOptions.DEFAULT_MAX_RAW_BYTES);
    }

    @Test
    void aPresetIsKnownByItsSpecsNameAndVersionAndNothingElseIs() {
        String rm3 = Presets.named("rm3").spec().name();
        DecodeOptions preset = ConsumedMetadata.known(rm3 + "/1", null);
        assertThat(preset).isNotNull();
        assertThat(preset.program().layout().sparse()).isEqualTo(42);
        assertThat(ConsumedMetadata.shapeOf(preset.program()))
                .startsWith("columns label,I1,I2,")
                .endsWith(
                        ",G42, lists C1,C2,C3,C4,C5,C6,C7,C8,C9,C10,C11,C12,C13,C14,C15,C16,"
                                + "C17,C18,C19,C20,C21,C22,C23,C24,C25,C26,C27,C28,C29,C30,C31,C32,C33,"
                                + "C34,C35,C36,C37,C38,C39,C40,C41,C42");
        assertThat(ConsumedMetadata.known(rm3 + "/2", null)).isNull();
        assertThat(ConsumedMetadata.known("my-spec/1", null)).isNull();
        assertThat(ConsumedMetadata.known("dlrm-criteo/2", null)).isNull();
        assertThat(ConsumedMetadata.known("no-version", null)).isNull();
    }
}
