package dev.piper.pipeline.generate;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongConsumer;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.sampling.distribution.SharedStateDiscreteSampler;
import org.apache.commons.rng.simple.RandomSource;

/**
 * Seeded e-commerce click events ({@code piper generate --events}): a user (string id, country,
 * age) shown an item (string id, its category, a price) at a position on a device, with the items
 * the user viewed recently (a list of string ids) and an event time; {@code clicked} is drawn from
 * a hidden logistic model of those fields, so a model can learn from the events and its AUC be
 * compared with the hidden model's own (the Bayes AUC, {@link #bayesAuc}).
 *
 * <p>The hidden model: {@code logit = bias + w_user + w_item + w_category + w_country + w_device +
 * sum_r 0.5 w_recent(r) + b_price (log1p(price) - 7) + b_position (log1p(position) - 1) + b_age
 * (log1p(age) - 3.5)}, every id its own weight (normal, drawn by hashing seed, phase, field and id,
 * as {@link ClickModel} does), a missing field contributing nothing. Users and items are drawn
 * Zipf-skewed (exponent {@value CriteoGenerator#ZIPF_EXPONENT}) from {@code 2,000,000 x scale}
 * users and {@code 500,000 x scale} items, an item's category fixed by the item. From {@code
 * driftAt} on the model has new weights and the popular users and items are others, as click logs
 * drift.
 *
 * <p>The same event is written as JSON ({@link #json}), as a CSV line ({@link #csv}, {@link
 * #CSV_HEADER}), as an Avro record ({@link #avro}, {@link #AVRO_SCHEMA}) or as a Protobuf message
 * ({@link #protobuf}, {@link #descriptorSet}); the presets {@code clicks-json}, {@code clicks-csv}
 * and {@code clicks-avro} read them to the same rows.
 */
public final class ClickEvents {

    /** The first event's time: 2026-11-27T00:00:00Z, in epoch milliseconds. */
    public static final long START_MS = 1_795_737_600_000L;

    /** Mean milliseconds between events. */
    static final double MEAN_GAP_MS = 10;

    /** Countries, most frequent first (drawn Zipf-skewed). */
    static final String[] COUNTRIES = {
        "US", "DE", "GB", "FR", "IN", "BR", "JP", "ES", "IT", "CA", "NL", "PL", "SE", "MX", "KR",
        "AU", "TR", "BE", "CH", "AT"
    };

    static final String[] DEVICES = {"android", "ios", "web"};

    /** The event's fields in a CSV line, in order. */
    public static final String CSV_HEADER =
            "ts,clicked,user_id,country,age,item_id,category,price_cents,position,device,recent_items";

    /** The Avro schema of an event: a nested user record, an optional device, a list. */
    public static final Schema AVRO_SCHEMA =
            new Schema.Parser()
                    .parse(
                            """
                            {"type": "record", "name": "ClickEvent", "namespace": "dev.piper.events",
                             "fields": [
                              {"name": "ts", "type": "long"},
                              {"name": "clicked", "type": "boolean"},
                              {"name": "user", "type": {"type": "record", "name": "User", "fields": [
                                {"name": "id", "type": "string"},
                                {"name": "country", "type": "string"},
                                {"name": "age", "type": ["null", "int"], "default": null}]}},
                              {"name": "item_id", "type": "string"},
                              {"name": "category", "type": "string"},
                              {"name": "price_cents", "type": "int"},
                              {"name": "position", "type": "int"},
                              {"name": "device", "type": ["null", "string"], "default": null},
                              {"name": "recent_items", "type": {"type": "array", "items": "string"}}
                             ]}""");

    /** The Protobuf message's full name. */
    public static final String MESSAGE = "dev.piper.events.ClickEvent";

    /** One event. {@code age} and {@code device} may be absent (0 and null). */
    public record Event(
            long ts,
            boolean clicked,
            String user,
            String country,
            int age,
            String item,
            String category,
            int priceCents,
            int position,
            String device,
            List<String> recent,
            double probability) {}

    // Hidden-model field numbers, for the weights' hashes.
    private static final int USER = 0;
    private static final int ITEM = 1;
    private static final int CATEGORY = 2;
    private static final int COUNTRY = 3;
    private static final int DEVICE = 4;
    private static final int RECENT = 5;
    private static final double[] ID_SD = {0.5, 0.6, 0.5, 0.2, 0.3, 0.4};
    private static final double BIAS = -1.3;

    private final long seed;
    private final long driftAt;
    private final UniformRandomProvider rng;
    private final SharedStateDiscreteSampler users;
    private final SharedStateDiscreteSampler items;
    private final SharedStateDiscreteSampler countries;
    private final int categories;
    private final double[][] denseWeights = new double[2][3];
    private final ClickModel.Auc[] bayes = {new ClickModel.Auc(), new ClickModel.Auc()};
    private long written;
    private long ts = START_MS;

    /**
     * @param seed the seed: the same seed gives the same events
     * @param scale multiplier of the user and item populations (0.01: 20,000 users, 5,000 items)
     * @param driftAt the event from which the hidden model and the popular ids change, or -1
     */
    public ClickEvents(long seed, double scale, long driftAt) {
        if (!(scale > 0)) {
            throw new IllegalArgumentException("scale must be positive: " + scale);
        }
        this.seed = seed;
        this.driftAt = driftAt;
        this.rng = RandomSource.XO_RO_SHI_RO_128_PP.create(seed);
        int userCount = (int) Math.max(10, Math.min(Integer.MAX_VALUE, 2_000_000 * scale));
        int itemCount = (int) Math.max(10, Math.min(Integer.MAX_VALUE, 500_000 * scale));
        this.categories = Math.max(5, Math.min(2_000, itemCount / 100));
        this.users =
                RejectionInversionZipfSampler.of(rng, userCount, CriteoGenerator.ZIPF_EXPONENT);
        this.items =
                RejectionInversionZipfSampler.of(rng, itemCount, CriteoGenerator.ZIPF_EXPONENT);
        this.countries = RejectionInversionZipfSampler.of(rng, COUNTRIES.length, 1.2);
        for (int phase = 0; phase < 2; phase++) {
            for (int j = 0; j < 3; j++) {
                denseWeights[phase][j] =
                        0.3 * ClickModel.gaussian(ClickModel.hash(seed, phase, -1 - j, 0));
            }
        }
    }

    /** The next event. */
    public Event next() {
        int phase = driftAt >= 0 && written >= driftAt ? 1 : 0;
        written++;
        ts += Math.round(-MEAN_GAP_MS * Math.log(1 - rng.nextDouble()));
        long userRank = scramble(users.sample(), phase, USER);
        long itemRank = scramble(items.sample(), phase, ITEM);
        String user = "u_" + Long.toString(userRank, 36);
        String country = COUNTRIES[countries.sample() - 1];
        int age = rng.nextDouble() < 0.1 ? 0 : 18 + rng.nextInt(63);
        String item = "i_" + itemRank;
        long categoryId = Math.floorMod(CriteoGenerator.mix64(itemRank ^ seed), categories);
        String category = "c_" + categoryId;
        int price = (int) Math.round(Math.exp(5 + 3 * rng.nextDouble())); // 1.48 to 29.81 units
        int position = 1 + (int) Math.min(19, -Math.log(1 - rng.nextDouble()) * 4);
        String device = rng.nextDouble() < 0.05 ? null : DEVICES[rng.nextInt(DEVICES.length)];
        int recentCount = rng.nextInt(6);
        List<String> recent = new ArrayList<>(recentCount);
        double z = BIAS;
        for (int i = 0; i < recentCount; i++) {
            long r = scramble(items.sample(), phase, ITEM);
            recent.add("i_" + r);
            z += 0.5 * weight(phase, RECENT, r);
        }
        z += weight(phase, USER, userRank);
        z += weight(phase, ITEM, itemRank);
        z += weight(phase, CATEGORY, categoryId);
        z += weight(phase, COUNTRY, country.charAt(0) * 256L + country.charAt(1));
        if (device != null) {
            z += weight(phase, DEVICE, device.charAt(0));
        }
        double[] w = denseWeights[phase];
        z += w[0] * (Math.log1p(price) - 7) + w[1] * (Math.log1p(position) - 1);
        if (age > 0) {
            z += w[2] * (Math.log1p(age) - 3.5);
        }
        double p = ClickModel.sigmoid(z);
        boolean clicked = rng.nextDouble() < p;
        bayes[phase].add(p, clicked);
        return new Event(
                ts,
                clicked,
                user,
                country,
                age,
                item,
                category,
                price,
                position,
                device,
                List.copyOf(recent),
                p);
    }

    private double weight(int phase, int field, long id) {
        return ID_SD[field] * ClickModel.gaussian(ClickModel.hash(seed, phase, 100 + field, id));
    }

    /** A Zipf rank as an id: phase 1 scrambles the ranks anew (other ids become popular). */
    private long scramble(int rank, int phase, int field) {
        long h = CriteoGenerator.mix64(rank * 0x9e3779b97f4a7c15L ^ (seed + 31L * field) ^ phase);
        return (h >>> 1) % 1_000_000_007L;
    }

    /** Events written so far. */
    public long written() {
        return written;
    }

    /** The Bayes AUC (the hidden model's own) of the events of {@code phase} so far. */
    public double bayesAuc(int phase) {
        return bayes[phase].value();
    }

    /** Events of {@code phase} so far. */
    public long events(int phase) {
        return bayes[phase].count();
    }

    /** The event as one line of JSON (no line break). */
    public static String json(Event e) {
        return json(e, null);
    }

    /**
     * The event as an impression: its JSON with {@code request_id} first and without {@code
     * clicked} (which its clicks tell, later, on their own stream); as {@link #json(Event)} when
     * {@code requestId} is null.
     */
    public static String json(Event e, String requestId) {
        StringBuilder b = new StringBuilder(256);
        if (requestId != null) {
            b.append("{\"request_id\": \"").append(requestId).append("\", \"ts\": ").append(e.ts());
        } else {
            b.append("{\"ts\": ").append(e.ts());
            b.append(", \"clicked\": ").append(e.clicked());
        }
        b.append(", \"user\": {\"id\": \"").append(e.user()).append("\", \"country\": \"");
        b.append(e.country()).append('"');
        if (e.age() > 0) {
            b.append(", \"age\": ").append(e.age());
        }
        b.append("}, \"item_id\": \"").append(e.item());
        b.append("\", \"category\": \"").append(e.category());
        b.append("\", \"price_cents\": ").append(e.priceCents());
        b.append(", \"position\": ").append(e.position());
        if (e.device() != null) {
            b.append(", \"device\": \"").append(e.device()).append('"');
        }
        b.append(", \"recent_items\": [");
        for (int i = 0; i < e.recent().size(); i++) {
            b.append(i == 0 ? "\"" : ", \"").append(e.recent().get(i)).append('"');
        }
        return b.append("]}").toString();
    }

    /** The event as a line of {@link #CSV_HEADER}'s columns, recent items joined by '|'. */
    public static String csv(Event e) {
        return String.join(
                ",",
                Long.toString(e.ts()),
                e.clicked() ? "1" : "0",
                e.user(),
                e.country(),
                e.age() > 0 ? Integer.toString(e.age()) : "",
                e.item(),
                e.category(),
                Integer.toString(e.priceCents()),
                Integer.toString(e.position()),
                e.device() == null ? "" : e.device(),
                String.join("|", e.recent()));
    }

    /** The event as a record of {@link #AVRO_SCHEMA}. */
    public static GenericRecord avro(Event e) {
        GenericRecord user = new GenericData.Record(AVRO_SCHEMA.getField("user").schema());
        user.put("id", e.user());
        user.put("country", e.country());
        user.put("age", e.age() > 0 ? e.age() : null);
        GenericRecord r = new GenericData.Record(AVRO_SCHEMA);
        r.put("ts", e.ts());
        r.put("clicked", e.clicked());
        r.put("user", user);
        r.put("item_id", e.item());
        r.put("category", e.category());
        r.put("price_cents", e.priceCents());
        r.put("position", e.position());
        r.put("device", e.device());
        r.put(
                "recent_items",
                new GenericData.Array<>(AVRO_SCHEMA.getField("recent_items").schema(), e.recent()));
        return r;
    }

    private static final FileDescriptorProto PROTO_FILE = protoFile();
    private static final Descriptor EVENT = descriptor(PROTO_FILE, "ClickEvent");

    private static FileDescriptorProto protoFile() {
        DescriptorProto user =
                DescriptorProto.newBuilder()
                        .setName("User")
                        .addField(field("id", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
                        .addField(field("country", 2, FieldDescriptorProto.Type.TYPE_STRING, false))
                        .addField(field("age", 3, FieldDescriptorProto.Type.TYPE_INT32, false))
                        .build();
        DescriptorProto event =
                DescriptorProto.newBuilder()
                        .setName("ClickEvent")
                        .addField(field("ts", 1, FieldDescriptorProto.Type.TYPE_INT64, false))
                        .addField(field("clicked", 2, FieldDescriptorProto.Type.TYPE_BOOL, false))
                        .addField(
                                field("user", 3, FieldDescriptorProto.Type.TYPE_MESSAGE, false)
                                        .toBuilder()
                                        .setTypeName(".dev.piper.events.User"))
                        .addField(field("item_id", 4, FieldDescriptorProto.Type.TYPE_STRING, false))
                        .addField(
                                field("category", 5, FieldDescriptorProto.Type.TYPE_STRING, false))
                        .addField(
                                field(
                                        "price_cents",
                                        6,
                                        FieldDescriptorProto.Type.TYPE_INT32,
                                        false))
                        .addField(field("position", 7, FieldDescriptorProto.Type.TYPE_INT32, false))
                        .addField(field("device", 8, FieldDescriptorProto.Type.TYPE_STRING, false))
                        .addField(
                                field(
                                        "recent_items",
                                        9,
                                        FieldDescriptorProto.Type.TYPE_STRING,
                                        true))
                        .build();
        return FileDescriptorProto.newBuilder()
                .setName("dev/piper/events/click_event.proto")
                .setPackage("dev.piper.events")
                .setSyntax("proto2")
                .addMessageType(user)
                .addMessageType(event)
                .build();
    }

    private static FieldDescriptorProto field(
            String name, int number, FieldDescriptorProto.Type type, boolean repeated) {
        return FieldDescriptorProto.newBuilder()
                .setName(name)
                .setNumber(number)
                .setType(type)
                .setLabel(
                        repeated
                                ? FieldDescriptorProto.Label.LABEL_REPEATED
                                : FieldDescriptorProto.Label.LABEL_OPTIONAL)
                .build();
    }

    private static Descriptor descriptor(FileDescriptorProto file, String name) {
        try {
            return Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[0])
                    .findMessageTypeByName(name);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A descriptor set of the event's message ({@link #MESSAGE}), as {@code input.descriptor}. */
    public static byte[] descriptorSet() {
        return FileDescriptorSet.newBuilder().addFile(PROTO_FILE).build().toByteArray();
    }

    // The message's fields, looked up once.
    private static final Descriptor USER_TYPE = EVENT.findFieldByName("user").getMessageType();
    private static final Descriptors.FieldDescriptor USER_ID = USER_TYPE.findFieldByName("id");
    private static final Descriptors.FieldDescriptor USER_COUNTRY =
            USER_TYPE.findFieldByName("country");
    private static final Descriptors.FieldDescriptor USER_AGE = USER_TYPE.findFieldByName("age");
    private static final Descriptors.FieldDescriptor TS = EVENT.findFieldByName("ts");
    private static final Descriptors.FieldDescriptor CLICKED = EVENT.findFieldByName("clicked");
    private static final Descriptors.FieldDescriptor USER_FIELD = EVENT.findFieldByName("user");
    private static final Descriptors.FieldDescriptor ITEM_ID = EVENT.findFieldByName("item_id");
    private static final Descriptors.FieldDescriptor CATEGORY_FIELD =
            EVENT.findFieldByName("category");
    private static final Descriptors.FieldDescriptor PRICE = EVENT.findFieldByName("price_cents");
    private static final Descriptors.FieldDescriptor POSITION = EVENT.findFieldByName("position");
    private static final Descriptors.FieldDescriptor DEVICE_FIELD = EVENT.findFieldByName("device");
    private static final Descriptors.FieldDescriptor RECENT_ITEMS =
            EVENT.findFieldByName("recent_items");

    /** The event as a message of {@link #MESSAGE}. */
    public static DynamicMessage protobuf(Event e) {
        DynamicMessage.Builder user =
                DynamicMessage.newBuilder(USER_TYPE)
                        .setField(USER_ID, e.user())
                        .setField(USER_COUNTRY, e.country());
        if (e.age() > 0) {
            user.setField(USER_AGE, e.age());
        }
        DynamicMessage.Builder m =
                DynamicMessage.newBuilder(EVENT)
                        .setField(TS, e.ts())
                        .setField(CLICKED, e.clicked())
                        .setField(USER_FIELD, user.build())
                        .setField(ITEM_ID, e.item())
                        .setField(CATEGORY_FIELD, e.category())
                        .setField(PRICE, e.priceCents())
                        .setField(POSITION, e.position());
        if (e.device() != null) {
            m.setField(DEVICE_FIELD, e.device());
        }
        for (String r : e.recent()) {
            m.addRepeatedField(RECENT_ITEMS, r);
        }
        return m.build();
    }

    /**
     * Writes the next {@code rows} events to {@code out} in {@code format}: JSON one object a line,
     * CSV with its header line, an Avro container file (deflate), or length-delimited Protobuf
     * messages (the descriptor set is {@link #descriptorSet}).
     *
     * @param progress told the events written so far, every 100,000
     */
    public void write(Format format, OutputStream out, long rows, LongConsumer progress)
            throws IOException {
        DataFileWriter<GenericRecord> avro = null;
        if (format == Format.AVRO) {
            avro = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(AVRO_SCHEMA));
            avro.setCodec(CodecFactory.deflateCodec(6));
            avro.create(AVRO_SCHEMA, out);
        } else if (format == Format.CSV) {
            out.write((CSV_HEADER + "\n").getBytes(StandardCharsets.UTF_8));
        }
        for (long i = 0; i < rows; i++) {
            Event e = next();
            switch (format) {
                case JSON -> out.write((json(e) + "\n").getBytes(StandardCharsets.UTF_8));
                case CSV -> out.write((csv(e) + "\n").getBytes(StandardCharsets.UTF_8));
                case AVRO -> avro.append(avro(e));
                case PROTOBUF -> protobuf(e).writeDelimitedTo(out);
            }
            if ((i + 1) % 100_000 == 0) {
                progress.accept(i + 1);
            }
        }
        if (avro != null) {
            avro.flush(); // the caller closes out
        }
    }

    /** The event formats {@code piper generate --events} writes. */
    public enum Format {
        JSON(".jsonl"),
        CSV(".csv"),
        AVRO(".avro"),
        PROTOBUF(".pb");

        private final String extension;

        Format(String extension) {
            this.extension = extension;
        }

        /** The file name ending of the format's files. */
        public String extension() {
            return extension;
        }

        /** The format of a name ({@code json}, {@code csv}, {@code avro}, {@code protobuf}). */
        public static Format of(String name) {
            for (Format f : values()) {
                if (f.name().equalsIgnoreCase(name)) {
                    return f;
                }
            }
            throw new IllegalArgumentException(
                    "unknown event format \"" + name + "\" (known: json, csv, avro, protobuf)");
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
