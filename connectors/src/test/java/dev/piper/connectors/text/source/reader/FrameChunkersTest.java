package dev.piper.connectors.text.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.core.chunk.Chunker;
import dev.piper.core.chunk.DelimitedChunker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binary files cut into chunks of frames: every record once, in order, chunks within their size (a
 * larger unit alone), positions counting records, and a chunker resumed at a position returning
 * what follows it.
 */
class FrameChunkersTest {

    /** The frames of every chunk, each as its payload, and the records counted. */
    private static List<byte[]> frames(Chunker chunker, int blockBytes, long[] records)
            throws IOException {
        List<byte[]> out = new ArrayList<>();
        RawChunk c;
        long expectedOffset = chunker.offset();
        while ((c = chunker.next()) != null) {
            assertThat(c.firstOffset()).isEqualTo(expectedOffset);
            int at = 0;
            int frames = 0;
            while (at < c.length()) {
                int length = RecordFrames.length(c.data(), at);
                records[0] += RecordFrames.records(c.data(), at);
                expectedOffset += RecordFrames.records(c.data(), at);
                out.add(Arrays.copyOfRange(c.data(), at + 8, at + 8 + length));
                at += RecordFrames.HEADER + length;
                frames++;
            }
            assertThat(at).isEqualTo(c.length());
            assertThat(c.length() <= blockBytes || frames == 1)
                    .as("a chunk within its size")
                    .isTrue();
        }
        assertThat(chunker.offset()).isEqualTo(expectedOffset);
        return out;
    }

    @Test
    void delimitedMessagesComeOutOneAFrameInOrderAndResume() throws Exception {
        SplittableRandom r = new SplittableRandom(7);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            byte[] m = new byte[i == 77 ? 5000 : r.nextInt(300)]; // one larger than a chunk
            r.nextBytes(m);
            messages.add(m);
            int n = m.length;
            while (n >= 0x80) {
                file.write((n & 0x7f) | 0x80);
                n >>>= 7;
            }
            file.write(n);
            file.writeBytes(m);
        }
        byte[] bytes = file.toByteArray();
        long[] count = {0};
        List<byte[]> read =
                frames(
                        new DelimitedChunker(new ByteArrayInputStream(bytes), "f", 0, 0, 1024),
                        1024,
                        count);
        assertThat(count[0]).isEqualTo(500);
        for (int i = 0; i < 500; i++) {
            assertThat(read.get(i)).as("message %d", i).isEqualTo(messages.get(i));
        }
        List<byte[]> rest =
                frames(
                        new DelimitedChunker(new ByteArrayInputStream(bytes), "f", 123, 9, 1024),
                        1024,
                        new long[1]);
        assertThat(rest).hasSize(377);
        assertThat(rest.get(0)).isEqualTo(messages.get(123));
        // a last message cut short travels as far as it goes
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 10);
        List<byte[]> cutRead =
                frames(
                        new DelimitedChunker(new ByteArrayInputStream(cut), "f", 0, 0, 1024),
                        1024,
                        new long[1]);
        assertThat(cutRead).hasSize(500);
        assertThat(cutRead.get(499)).hasSize(messages.get(499).length - 10);
        // a length no message can have is no such file
        byte[] bogus = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f};
        assertThatThrownBy(
                        () ->
                                new DelimitedChunker(
                                                new ByteArrayInputStream(bogus), "x.pb", 0, 0, 1024)
                                        .next())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("x.pb at byte 0: a message of 34359738367 bytes");
    }

    @Test
    void anAvroFilesBlocksComeOutAFrameEachCountingTheirDatumsAndResume() throws Exception {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"x\", \"type\": \"long\"}]}");
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        try (DataFileWriter<GenericRecord> w =
                new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
            w.setSyncInterval(64); // small blocks
            w.create(schema, file);
            for (long i = 0; i < 1000; i++) {
                GenericRecord rec = new GenericData.Record(schema);
                rec.put("x", i * 1000);
                w.append(rec);
            }
        }
        byte[] bytes = file.toByteArray();
        long[] count = {0};
        List<byte[]> blocks =
                frames(
                        new AvroBlockChunker(new ByteArrayInputStream(bytes), 0, 0, 512),
                        512,
                        count);
        assertThat(count[0]).isEqualTo(1000);
        assertThat(blocks.size()).isGreaterThan(10);
        assertThat(AvroBlockChunker.writerSchema(new ByteArrayInputStream(bytes)))
                .isEqualTo(schema.toString());
        // resumed after the datums of the first chunk
        AvroBlockChunker first = new AvroBlockChunker(new ByteArrayInputStream(bytes), 0, 0, 512);
        first.next();
        long resumeAt = first.offset();
        long[] rest = {0};
        frames(new AvroBlockChunker(new ByteArrayInputStream(bytes), resumeAt, 1, 512), 512, rest);
        assertThat(rest[0]).isEqualTo(1000 - resumeAt);
        assertThatThrownBy(
                        () ->
                                new AvroBlockChunker(
                                        new ByteArrayInputStream(bytes), resumeAt + 1, 1, 512))
                .hasMessageContaining("which is not a block's first");
    }

    /**
     * An Avro container file read in byte ranges of any size (smaller than a block, a few blocks,
     * the whole file), plain and deflated: every block in exactly one range, in order, as the
     * stream reader gives them; a range in which no block starts is an empty chunk.
     */
    @Test
    void anAvroFilesRangesHoldEveryBlockOnceInOrder(@TempDir Path dir) throws Exception {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\":"
                                        + " \"x\", \"type\": \"long\"}, {\"name\": \"s\", \"type\":"
                                        + " \"string\"}]}");
        for (CodecFactory codec :
                new CodecFactory[] {CodecFactory.nullCodec(), CodecFactory.deflateCodec(6)}) {
            Path file = dir.resolve(codec + ".avro");
            SplittableRandom r = new SplittableRandom(11);
            try (DataFileWriter<GenericRecord> w =
                    new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
                w.setCodec(codec);
                w.setSyncInterval(200);
                w.create(schema, file.toFile());
                for (long i = 0; i < 3000; i++) {
                    GenericRecord rec = new GenericData.Record(schema);
                    rec.put("x", r.nextLong());
                    rec.put("s", "s" + r.nextInt(100_000));
                    w.append(rec);
                }
            }
            byte[] bytes = Files.readAllBytes(file);
            long[] all = {0};
            List<byte[]> expected =
                    frames(new AvroBlockChunker(new ByteArrayInputStream(bytes), 0, 0, 1), 1, all);
            assertThat(expected.size()).as("blocks").isGreaterThan(50);
            for (int size : new int[] {37, 300, 4096, bytes.length}) {
                List<byte[]> read = new ArrayList<>();
                long datums = 0;
                int empty = 0;
                try (AvroRanges ranges = new AvroRanges(file.toString())) {
                    for (long k = 0; k * size < bytes.length; k++) {
                        RawChunk c =
                                ranges.read(k, k * size, Math.min((k + 1) * size, bytes.length));
                        assertThat(c.seq()).isEqualTo(k);
                        empty += c.length() == 0 ? 1 : 0;
                        for (int at = 0; at < c.length(); ) {
                            int length = RecordFrames.length(c.data(), at);
                            datums += RecordFrames.records(c.data(), at);
                            read.add(Arrays.copyOfRange(c.data(), at + 8, at + 8 + length));
                            at += RecordFrames.HEADER + length;
                        }
                    }
                }
                assertThat(datums).as("%s, ranges of %d", codec, size).isEqualTo(3000);
                assertThat(read).as("%s, ranges of %d", codec, size).hasSameSizeAs(expected);
                for (int b = 0; b < read.size(); b++) {
                    assertThat(read.get(b)).as("block %d", b).isEqualTo(expected.get(b));
                }
                if (size == 37) {
                    assertThat(empty).as("ranges where no block starts").isPositive();
                }
            }
        }
    }
}
