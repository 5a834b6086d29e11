package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.generate.CriteoProtobuf;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Protobuf messages decode to the rows the same events make as JSON ({@link JsonEventDecoder}, the
 * reference): Criteo lines written as messages, and seeded click events with a nested message, an
 * enum, a repeated string list, a packed repeated integer read by element, and fields no column
 * reads (known or not); and every message that does not parse as the spec's (truncated, of another
 * type) is a dead letter with its reason, the counts adding up.
 */
class ProtobufEventDecoderTest {

    @TempDir static Path tmp;

    private static DecodeOptions options(String spec) throws Exception {
        PipelineSpec parsed = SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test");
        return SpecCompiler.decodeOptions(parsed, 256);
    }

    private static CriteoDecoder.Decoded json(DecodeOptions options, List<String> events) {
        byte[] b = (String.join("\n", events) + "\n").getBytes(StandardCharsets.UTF_8);
        return new JsonEventDecoder(options, false, false)
                .decode(new RawChunk(0, 0, b, b.length, -1), false);
    }

    private static final String CRITEO_CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero", "log"],
              "C1..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 100000}, "vocab"]
            }""";

    @Test
    void criteoLinesAsMessagesDecodeToTheTextsRows() throws Exception {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(20261128, 0.001, 0.02).write(tsv, 3000);
        CriteoProtobuf proto = new CriteoProtobuf(RowLayout.CRITEO);
        StringBuilder kept = new StringBuilder();
        List<byte[]> messages = new ArrayList<>();
        for (String line : tsv.toString(StandardCharsets.UTF_8).split("\n")) {
            DynamicMessage m = proto.toMessage(line);
            if (m != null && line.length() <= 1000) {
                kept.append(line).append('\n');
                messages.add(m.toByteArray());
            }
        }
        assertThat(messages).hasSizeGreaterThan(2900);
        byte[] t = kept.toString().getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded expected =
                new CriteoDecoder(
                                options(
                                        "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                                + " \"criteo-tsv\"},"
                                                + CRITEO_CHAINS
                                                + "}"),
                                false)
                        .decode(new RawChunk(0, 0, t, t.length, -1), false);
        Path set = tmp.resolve("criteo.desc");
        Files.write(set, proto.descriptorSet());
        CriteoDecoder.Decoded actual =
                new ProtobufEventDecoder(
                                options(
                                        "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                                + " \"protobuf\", \"descriptor\": \""
                                                + set
                                                + "\", \"message\": \""
                                                + CriteoProtobuf.MESSAGE
                                                + "\"},"
                                                + CRITEO_CHAINS
                                                + "}"),
                                false)
                        .decode(DecodedBlocks.frames(messages), false);
        assertThat(actual.dense().lines()).isEqualTo(messages.size());
        DecodedBlocks.assertSameRows("protobuf", expected, actual);
        assertThat(DecodedBlocks.reasons(actual))
                .isEqualTo(DecodedBlocks.reasons(expected))
                .isNotEmpty();
    }

    /** shop.Click, with a nested User, an enum, lists, and fields nobody reads. */
    private static Descriptor clickType() throws Exception {
        FieldDescriptorProto.Builder f = FieldDescriptorProto.newBuilder();
        DescriptorProto user =
                DescriptorProto.newBuilder()
                        .setName("User")
                        .addField(f.clone().setName("id").setNumber(1).setType(Type.TYPE_STRING))
                        .addField(
                                f.clone().setName("country").setNumber(2).setType(Type.TYPE_STRING))
                        .addField(f.clone().setName("age").setNumber(3).setType(Type.TYPE_INT32))
                        .build();
        DescriptorProto click =
                DescriptorProto.newBuilder()
                        .setName("Click")
                        .addField(f.clone().setName("ts").setNumber(1).setType(Type.TYPE_INT64))
                        .addField(f.clone().setName("clicked").setNumber(2).setType(Type.TYPE_BOOL))
                        .addField(
                                f.clone()
                                        .setName("user")
                                        .setNumber(3)
                                        .setType(Type.TYPE_MESSAGE)
                                        .setTypeName(".shop.User"))
                        .addField(
                                f.clone().setName("item_id").setNumber(4).setType(Type.TYPE_UINT64))
                        .addField(f.clone().setName("price").setNumber(5).setType(Type.TYPE_DOUBLE))
                        .addField(
                                f.clone()
                                        .setName("category")
                                        .setNumber(6)
                                        .setType(Type.TYPE_ENUM)
                                        .setTypeName(".shop.Category"))
                        .addField(
                                f.clone()
                                        .setName("recent_items")
                                        .setNumber(7)
                                        .setLabel(Label.LABEL_REPEATED)
                                        .setType(Type.TYPE_STRING))
                        .addField(
                                f.clone()
                                        .setName("scores")
                                        .setNumber(8)
                                        .setLabel(Label.LABEL_REPEATED)
                                        .setType(Type.TYPE_SINT32))
                        .addField(f.clone().setName("blob").setNumber(9).setType(Type.TYPE_BYTES))
                        .build();
        EnumDescriptorProto category =
                EnumDescriptorProto.newBuilder()
                        .setName("Category")
                        .addValue(
                                EnumValueDescriptorProto.newBuilder().setName("BOOKS").setNumber(0))
                        .addValue(
                                EnumValueDescriptorProto.newBuilder().setName("GAMES").setNumber(1))
                        .addValue(
                                EnumValueDescriptorProto.newBuilder()
                                        .setName("GARDEN")
                                        .setNumber(2))
                        .build();
        FileDescriptorProto file =
                FileDescriptorProto.newBuilder()
                        .setName("shop/click.proto")
                        .setPackage("shop")
                        .setSyntax("proto3")
                        .addMessageType(user)
                        .addMessageType(click)
                        .addEnumType(category)
                        .build();
        Files.write(
                tmp.resolve("click.desc"),
                FileDescriptorSet.newBuilder().addFile(file).build().toByteArray());
        return Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[0])
                .findMessageTypeByName("Click");
    }

    private static final String CLICK_SPEC =
            """
            {"name": "clicks", "version": 1,
             "input": {"format": "%s", "dense": 2, "sparse": 6, "list_columns": ["C5"], %s
               "fields": {"label": "clicked", "I1": "user.age", "I2": "scores[1]",
                 "C1": "user.id", "C2": "item_id", "C3": "user.country", "C4": "category",
                 "C5": "recent_items", "C6": "ts"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", "fill_missing", "neg2zero"],
               "C1": ["decode", "fill_missing", "hash64", "vocab"],
               "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
               "C3..C4": ["decode", "fill_missing", "hash64", "vocab"],
               "C5": ["decode", "fill_missing", "hash64", "vocab"],
               "C6": ["decode", "fill_missing", "hex2int", "vocab"]
             }}""";

    private static DecodeOptions protobufOptions() throws Exception {
        return options(
                CLICK_SPEC.formatted(
                        "protobuf",
                        "\"descriptor\": \""
                                + tmp.resolve("click.desc")
                                + "\", \"message\": \"shop.Click\","));
    }

    @Test
    void nestedEnumListAndPackedFieldsDecodeAsTheSameEventsInJson() throws Exception {
        Descriptor click = clickType();
        Descriptor user = click.findFieldByName("user").getMessageType();
        SplittableRandom r = new SplittableRandom(42);
        List<byte[]> messages = new ArrayList<>();
        List<String> json = new ArrayList<>();
        String[] cats = {"BOOKS", "GAMES", "GARDEN"};
        for (int i = 0; i < 5000; i++) {
            DynamicMessage.Builder u = DynamicMessage.newBuilder(user);
            StringBuilder j = new StringBuilder("{");
            String id = "u_" + Integer.toHexString(r.nextInt(5000));
            u.setField(user.findFieldByName("id"), id);
            j.append("\"user\": {\"id\": \"").append(id).append('"');
            if (r.nextInt(4) > 0) {
                String country = r.nextBoolean() ? "DE" : "Ünïcode";
                u.setField(user.findFieldByName("country"), country);
                j.append(", \"country\": \"").append(country).append('"');
            }
            int age = r.nextInt(-5, 90);
            if (age != 0) { // proto3: a zero is not written, and reads as missing (fill 0)
                u.setField(user.findFieldByName("age"), age);
                j.append(", \"age\": ").append(age);
            }
            j.append('}');
            DynamicMessage.Builder m = DynamicMessage.newBuilder(click);
            m.setField(click.findFieldByName("user"), u.build());
            long ts = 1764230400123L + i;
            m.setField(click.findFieldByName("ts"), ts);
            j.append(", \"ts\": ").append(ts);
            if (r.nextInt(3) == 0) {
                m.setField(click.findFieldByName("clicked"), true);
                j.append(", \"clicked\": true");
            }
            long item = r.nextLong() >>> r.nextInt(1, 64);
            if (item != 0) {
                m.setField(click.findFieldByName("item_id"), item);
                j.append(", \"item_id\": ").append(item);
            }
            int cat = r.nextInt(3);
            if (cat != 0) { // proto3 writes no zero: BOOKS is absent, a missing value
                m.setField(
                        click.findFieldByName("category"),
                        click.findFieldByName("category").getEnumType().findValueByNumber(cat));
                j.append(", \"category\": \"").append(cats[cat]).append('"');
            }
            j.append(", \"recent_items\": [");
            for (int k = r.nextInt(4), n = 0; k > 0; k--, n++) {
                String item2 = "i_" + r.nextInt(100);
                m.addRepeatedField(click.findFieldByName("recent_items"), item2);
                j.append(n > 0 ? ", " : "").append('"').append(item2).append('"');
            }
            j.append(']');
            int scores = r.nextInt(4);
            for (int k = 0; k < scores; k++) {
                int s = r.nextInt(-100, 100);
                m.addRepeatedField(click.findFieldByName("scores"), s);
                if (k == 1) {
                    j.append(", \"scores\": [0, ").append(s).append(']');
                }
            }
            m.setField(
                    click.findFieldByName("blob"),
                    com.google.protobuf.ByteString.copyFrom(new byte[r.nextInt(9)]));
            messages.add(m.build().toByteArray());
            json.add(j.append('}').toString());
        }
        CriteoDecoder.Decoded expected = json(options(CLICK_SPEC.formatted("json", "")), json);
        CriteoDecoder.Decoded actual =
                new ProtobufEventDecoder(protobufOptions(), false)
                        .decode(DecodedBlocks.frames(messages), false);
        assertThat(actual.dense().lines()).isEqualTo(5000);
        assertThat(expected.dense().rows()).isGreaterThan(4000);
        DecodedBlocks.assertSameRows("protobuf events", expected, actual);
        assertThat(DecodedBlocks.reasons(actual)).isEqualTo(DecodedBlocks.reasons(expected));
    }

    @Test
    void aMessageOfAnotherTypeOrCutShortIsADeadLetterAndTheCountsAddUp() throws Exception {
        Descriptor click = clickType();
        DynamicMessage.Builder m = DynamicMessage.newBuilder(click);
        m.setField(click.findFieldByName("ts"), 17L);
        m.setField(click.findFieldByName("clicked"), true);
        byte[] good = m.build().toByteArray();
        Descriptor user = click.findFieldByName("user").getMessageType();
        // a User where a Click belongs: its field 1 (id) is a string, Click's an int64
        byte[] other =
                DynamicMessage.newBuilder(user)
                        .setField(user.findFieldByName("id"), "u1")
                        .setField(user.findFieldByName("country"), "DE")
                        .build()
                        .toByteArray();
        byte[] cut = Arrays.copyOf(good, good.length - 1);
        byte[] unknown = Arrays.copyOf(good, good.length + 3); // field 15, a varint: skipped
        unknown[good.length] = (byte) (15 << 3);
        unknown[good.length + 1] = (byte) 0x81;
        unknown[good.length + 2] = 1;
        RawChunk frames = DecodedBlocks.frames(List.of(good, other, cut, unknown, new byte[0]));
        // the file's block whose first message is message 1000 of the file
        RawChunk block = new RawChunk(3, 1000, frames.data(), frames.length(), -1);
        CriteoDecoder.Decoded d =
                new ProtobufEventDecoder(protobufOptions(), false).decode(block, false);
        assertThat(d.dense().lines()).isEqualTo(5);
        assertThat(d.dense().rows()).isEqualTo(3); // good, unknown, and the empty message
        DeadLetter[] dead = d.dense().deadLetters();
        assertThat(dead).hasSize(2);
        assertThat(dead[0].lineInBlock()).isEqualTo(1);
        assertThat(dead[0].reason()).isEqualTo("invalid_protobuf");
        assertThat(dead[0].detail())
                .isEqualTo(
                        "field 1 (ts) has wire type 2 (length-delimited), but shop.Click declares"
                                + " it int64");
        assertThat(dead[1].lineInBlock()).isEqualTo(2);
        assertThat(dead[1].detail()).isEqualTo("the message ends early, reading \"clicked\"");
        assertThat(dead[1].raw()).isEqualTo(cut);
        // a dead letter's offset is the block's first message's number; its line, the block's
        assertThat(dead).allSatisfy(x -> assertThat(x.offset()).isEqualTo(1000));
    }

    @Test
    void aPathIntoAScalarIsAWrongTypeNamingColumnAndPath() throws Exception {
        clickType();
        DecodeOptions o =
                options(
                        CLICK_SPEC
                                .formatted(
                                        "protobuf",
                                        "\"descriptor\": \""
                                                + tmp.resolve("click.desc")
                                                + "\", \"message\": \"shop.Click\",")
                                .replace("\"C6\": \"ts\"", "\"C6\": \"blob\""));
        Descriptor click = clickType();
        byte[] m =
                DynamicMessage.newBuilder(click)
                        .setField(
                                click.findFieldByName("blob"),
                                com.google.protobuf.ByteString.copyFromUtf8("zz"))
                        .build()
                        .toByteArray();
        CriteoDecoder.Decoded d =
                new ProtobufEventDecoder(o, false).decode(DecodedBlocks.frames(List.of(m)), false);
        assertThat(d.dense().deadLetters()).hasSize(1);
        assertThat(d.dense().deadLetters()[0].reason()).isEqualTo("categorical_not_hex");
        assertThat(d.dense().deadLetters()[0].detail())
                .isEqualTo("C6 (blob): \"zz\" is not hexadecimal (hex2int; hash64 takes any text)");
    }
}
