package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** A run's spec, read from its configuration wherever it is needed, is parsed once. */
class PiperOptionsTest {

    @Test
    void aSpecIsParsedOncePerProcessWhereverItIsRead() throws Exception {
        String text = new String(Presets.named("rm2").text(), StandardCharsets.UTF_8);
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, text);
        // the checks, the job graph and the operators' options each read it: one parse
        assertThat(PiperOptions.spec(conf)).isSameAs(PiperOptions.spec(conf));
        assertThat(PiperOptions.parsed(text, "another source")).isSameAs(PiperOptions.spec(conf));
        assertThat(PiperOptions.decodeOptions(conf).program().name())
                .isEqualTo(PiperOptions.spec(conf).name());
    }

    @Test
    void aRefusedSpecIsRefusedEachTimeNamingItsSource() {
        for (String source : new String[] {"first.json", "second.json"}) {
            assertThatThrownBy(() -> PiperOptions.parsed("{\"name\": 3}", source))
                    .isInstanceOf(SpecException.class)
                    .hasMessageContaining(source);
        }
    }
}
