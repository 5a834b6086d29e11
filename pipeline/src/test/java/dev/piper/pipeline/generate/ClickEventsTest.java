package dev.piper.pipeline.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;

/**
 * The click events: seeded, their hidden model learnable (a Bayes AUC well above chance), drift
 * changing the popular ids, and one event alike in each format.
 */
class ClickEventsTest {

    @Test
    void theSameSeedGivesTheSameEvents() throws Exception {
        for (ClickEvents.Format f : ClickEvents.Format.values()) {
            ByteArrayOutputStream a = new ByteArrayOutputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            new ClickEvents(3, 0.01, -1).write(f, a, 2_000, done -> {});
            new ClickEvents(3, 0.01, -1).write(f, b, 2_000, done -> {});
            if (f != ClickEvents.Format.AVRO) { // a container file's sync marker is random
                assertThat(a.toByteArray()).as(f.toString()).isEqualTo(b.toByteArray());
            }
            ByteArrayOutputStream c = new ByteArrayOutputStream();
            new ClickEvents(4, 0.01, -1).write(f, c, 2_000, done -> {});
            assertThat(c.toByteArray()).as(f.toString()).isNotEqualTo(a.toByteArray());
        }
    }

    @Test
    void theHiddenModelIsLearnableAndDrifts() {
        ClickEvents g = new ClickEvents(5, 0.01, 50_000);
        Set<String> popularBefore = new HashSet<>();
        Set<String> popularAfter = new HashSet<>();
        long clicks = 0;
        long times = ClickEvents.START_MS;
        for (int i = 0; i < 100_000; i++) {
            ClickEvents.Event e = g.next();
            assertThat(e.ts()).isGreaterThanOrEqualTo(times);
            times = e.ts();
            clicks += e.clicked() ? 1 : 0;
            (i < 50_000 ? popularBefore : popularAfter).add(e.item());
            assertThat(e.recent()).hasSizeLessThanOrEqualTo(5);
        }
        assertThat(clicks).isBetween(15_000L, 40_000L);
        assertThat(g.bayesAuc(0)).isBetween(0.68, 0.85);
        assertThat(g.bayesAuc(1)).isBetween(0.68, 0.85);
        assertThat(g.events(1)).isEqualTo(50_000);
        Set<String> shared = new HashSet<>(popularBefore);
        shared.retainAll(popularAfter);
        assertThat(shared.size()).isLessThan(popularBefore.size() / 5); // others are popular now
    }

    @Test
    void anEventIsTheSameInEveryFormat() throws Exception {
        ClickEvents.Event e = new ClickEvents(9, 0.01, -1).next();
        JsonNode json = new ObjectMapper().readTree(ClickEvents.json(e));
        assertThat(json.get("user").get("id").asText()).isEqualTo(e.user());
        assertThat(json.get("item_id").asText()).isEqualTo(e.item());
        assertThat(json.get("recent_items").size()).isEqualTo(e.recent().size());
        assertThat(ClickEvents.csv(e).split(",", -1))
                .hasSize(ClickEvents.CSV_HEADER.split(",").length)
                .contains(e.user(), e.item(), e.category(), Long.toString(e.ts()));
        assertThat(GenericData.get().validate(ClickEvents.AVRO_SCHEMA, ClickEvents.avro(e)))
                .isTrue();
        FileDescriptorSet set = FileDescriptorSet.parseFrom(ClickEvents.descriptorSet());
        Descriptors.Descriptor type =
                Descriptors.FileDescriptor.buildFrom(
                                set.getFile(0), new Descriptors.FileDescriptor[0])
                        .findMessageTypeByName("ClickEvent");
        DynamicMessage m = DynamicMessage.parseFrom(type, ClickEvents.protobuf(e).toByteArray());
        assertThat(m.getField(type.findFieldByName("item_id"))).isEqualTo(e.item());
        assertThat(m.getRepeatedFieldCount(type.findFieldByName("recent_items")))
                .isEqualTo(e.recent().size());
        assertThat(new String(ClickEvents.json(e).getBytes(StandardCharsets.UTF_8)))
                .startsWith("{\"ts\": " + e.ts());
        assertThatThrownBy(() -> ClickEvents.Format.of("xml"))
                .hasMessage("unknown event format \"xml\" (known: json, csv, avro, protobuf)");
    }
}
