package dev.piper.pipeline.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StringIdsTest {

    /**
     * The test vectors of docs/SPECS.md ("String ids"): computed by the reference C library
     * (libxxhash through Debian's python3-xxhash 3.0: {@code xxhash.xxh64_intdigest(s.encode(),
     * seed=0)}), not by the code under test. The 40-byte one takes XXH64's 32-byte stripes.
     */
    static final Map<String, String> VECTORS = new LinkedHashMap<>();

    static {
        VECTORS.put("", "ef46db3751d8e999");
        VECTORS.put("a", "d24ec4f1a98c6e5b");
        VECTORS.put("abc", "44bc2cf5ad770999");
        VECTORS.put("u_9f3c", "b60e89600875099c");
        VECTORS.put("i_77", "b9ac2960c2755f09");
        VECTORS.put("Ünïcödé", "7f9e9226cdd8d6cc");
        VECTORS.put("68fd1e64", "5d3ccd85c9c22fe4");
        VECTORS.put("a".repeat(40), "569ea6843111ef03");
    }

    @Test
    void keysAreXxh64WithSeedZeroOverUtf8() {
        for (Map.Entry<String, String> v : VECTORS.entrySet()) {
            assertThat(Long.toHexString(StringIds.key(v.getKey())))
                    .as("XXH64(\"%s\")", v.getKey())
                    .isEqualTo(v.getValue().replaceFirst("^0+(?=.)", ""));
        }
    }

    @Test
    void aSliceOfBytesHashesAsTheStringItHolds() {
        byte[] b = "xx u_9f3c yy".getBytes(StandardCharsets.UTF_8);
        assertThat(StringIds.key(b, 3, 6)).isEqualTo(StringIds.key("u_9f3c"));
    }

    @Test
    void pathsReadNestedFieldsAndElements() {
        assertThat(FieldPath.parse("user.id").segments())
                .containsExactly(FieldPath.Segment.field("user"), FieldPath.Segment.field("id"));
        assertThat(FieldPath.parse("items[2].ids[0]").segments())
                .containsExactly(
                        FieldPath.Segment.field("items"),
                        FieldPath.Segment.element(2),
                        FieldPath.Segment.field("ids"),
                        FieldPath.Segment.element(0));
        assertThat(FieldPath.parse("user").encloses(FieldPath.parse("user.id"))).isTrue();
        assertThat(FieldPath.parse("user.id").encloses(FieldPath.parse("user"))).isFalse();
        assertThatThrownBy(() -> FieldPath.parse("user..id"))
                .hasMessage("\"user..id\": empty field name at character 6");
        assertThatThrownBy(() -> FieldPath.parse("items[x]"))
                .hasMessageContaining("[x] is not an array index");
        assertThatThrownBy(() -> FieldPath.parse("items[1"))
                .hasMessageContaining("unclosed [ at character 6");
        assertThatThrownBy(() -> FieldPath.parse("a.")).hasMessageContaining("empty field name");
        assertThatThrownBy(() -> FieldPath.parse("[0]")).hasMessageContaining("empty field name");
    }
}
