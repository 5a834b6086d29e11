package dev.piper.job;

import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.spec.Presets;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupWriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The click events of {@code piper generate --events json} (and the same events as Parquet), for
 * the ITCases that read them.
 */
final class ClickEventFiles {

    private ClickEventFiles() {}

    /** Writes {@code rows} seeded events at scale 0.01, without drift, to {@code file}. */
    static Path json(Path file, long seed, int rows) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            new ClickEvents(seed, 0.01, -1).write(ClickEvents.Format.JSON, out, rows, done -> {});
        }
        return file;
    }

    /**
     * The same events as {@link #json} writes, as a Parquet file of the shape a team's own export
     * would have: a TIMESTAMP, a nested {@code user} group, string ids, a LIST of strings; row
     * groups of about 64 KiB, so that readers share the file.
     */
    static Path parquet(Path file, long seed, int rows) throws IOException {
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        """
                        message click {
                          required int64 ts (TIMESTAMP(MILLIS,true));
                          required boolean clicked;
                          required group user {
                            required binary id (STRING);
                            required binary country (STRING);
                            optional int32 age;
                          }
                          required binary item_id (STRING);
                          required binary category (STRING);
                          required int32 price_cents;
                          required int32 position;
                          optional binary device (STRING);
                          required group recent_items (LIST) {
                            repeated group list {
                              required binary element (STRING);
                            }
                          }
                        }""");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        Configuration conf = new Configuration(false);
        GroupWriteSupport.setSchema(schema, conf);
        ClickEvents events = new ClickEvents(seed, 0.01, -1);
        try (ParquetWriter<Group> out =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withConf(conf)
                        .withType(schema)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .withRowGroupSize(64 * 1024L)
                        .withPageRowCountLimit(1000)
                        .build()) {
            for (int i = 0; i < rows; i++) {
                ClickEvents.Event e = events.next();
                Group g = groups.newGroup();
                g.add("ts", e.ts());
                g.add("clicked", e.clicked());
                Group user = g.addGroup("user");
                user.add("id", e.user());
                user.add("country", e.country());
                if (e.age() > 0) {
                    user.add("age", e.age()); // 0: unknown, absent as in the JSON events
                }
                g.add("item_id", e.item());
                g.add("category", e.category());
                g.add("price_cents", e.priceCents());
                g.add("position", e.position());
                if (e.device() != null) {
                    g.add("device", e.device());
                }
                Group recent = g.addGroup("recent_items");
                for (String item : e.recent()) {
                    recent.addGroup("list").add("element", item);
                }
                out.write(g);
            }
        }
        return file;
    }

    /** The text of the preset that reads them, {@code clicks-json}. */
    static String preset() {
        return new String(Presets.named("clicks-json").text(), StandardCharsets.UTF_8);
    }

    /**
     * The click events' spec ({@link #preset}'s chains) over Protobuf messages of {@link
     * ClickEvents#MESSAGE}, its descriptor set written to {@code desc}.
     */
    static String protobufSpec(Path desc) throws IOException {
        Files.write(desc, ClickEvents.descriptorSet());
        return preset().replace(
                        "\"format\": \"json\"",
                        "\"format\": \"protobuf\", \"descriptor\": \""
                                + desc.toString().replace("\\", "\\\\")
                                + "\", \"message\": \""
                                + ClickEvents.MESSAGE
                                + "\"");
    }
}
