package dev.piper.operators.control;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.input.CsvOptions;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.ProtobufOptions;
import dev.piper.pipeline.join.ActionSource;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.PipelineSpec.Column;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Kryo serializer of a {@link PipelineSpec} inside {@link PipelineSpecSerializer}'s bytes: the
 * spec's parts in the order of the formats that added them (that class's documentation gives the
 * layout); a part a format being read does not have takes its value from before that format.
 */
final class PipelineSpecWriter extends Serializer<PipelineSpec> {
    private final PipelineSpecSerializer.Reading reading;

    PipelineSpecWriter(PipelineSpecSerializer.Reading reading) {
        this.reading = reading;
    }

    @Override
    public void write(Kryo kryo, Output out, PipelineSpec s) {
        out.writeString(s.name());
        out.writeVarInt(s.version(), true);
        out.writeString(s.input().format());
        out.writeString(s.input().topic().orElse(null));
        out.writeString(s.input().routeField().orElse(null));
        out.writeString(s.input().routeValue().orElse(null));
        writeColumns(kryo, out, s.columns());
        out.writeString(s.output().format());
        out.writeBoolean(s.output().padMissingFields());
        out.writeVarInt(s.output().maxLineBytes(), true);
        writeMap(out, s.input().parquetColumns()); // format 4
        writeLayout(out, s.layout()); // 5
        writeHotline(out, s.hotline()); // 6, 13
        writeMap(out, s.input().fields()); // 8
        writeEventFormats(out, s.input()); // 9, 10, 11
        EventTime time = s.input().eventTime(); // 12
        out.writeBoolean(time != null);
        if (time != null) {
            out.writeString(time.field());
            out.writeVarInt(time.unit().ordinal(), true);
        }
        writeLabels(out, s.labels()); // 14
    }

    private static void writeLabels(Output out, LabelSpec labels) {
        out.writeBoolean(labels != null);
        if (labels == null) {
            return;
        }
        out.writeString(labels.key());
        JoinSettings join = labels.join();
        out.writeVarLong(join.maxOutOfOrdernessMs(), true);
        out.writeVarLong(join.retentionMs(), true);
        out.writeDouble(join.negativeSampleRate());
        out.writeVarInt(join.streams().size(), true);
        for (int i = 0; i < join.streams().size(); i++) {
            ActionStream stream = join.streams().get(i);
            ActionSource source = labels.sources().get(i);
            out.writeString(stream.name());
            out.writeVarLong(stream.windowMs(), true);
            out.writeVarInt(stream.policy().ordinal(), true);
            out.writeString(source.format());
            out.writeString(source.key());
            out.writeString(source.time().field());
            out.writeVarInt(source.time().unit().ordinal(), true);
            out.writeString(source.id());
            out.writeString(source.value());
            out.writeString(source.topic());
        }
    }

    private static LabelSpec readLabels(Input in) {
        if (!in.readBoolean()) {
            return null;
        }
        String key = in.readString();
        long bound = in.readVarLong(true);
        long retention = in.readVarLong(true);
        double rate = in.readDouble();
        int count = in.readVarInt(true);
        List<ActionStream> streams = new ArrayList<>(count);
        List<ActionSource> sources = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            streams.add(
                    new ActionStream(
                            in.readString(),
                            in.readVarLong(true),
                            EmitPolicy.values()[in.readVarInt(true)]));
            String format = in.readString();
            String actionKey = in.readString();
            EventTime time =
                    new EventTime(in.readString(), EventTime.Unit.values()[in.readVarInt(true)]);
            sources.add(
                    new ActionSource(
                            format,
                            actionKey,
                            time,
                            in.readString(),
                            in.readString(),
                            in.readString()));
        }
        return new LabelSpec(key, new JoinSettings(streams, bound, retention, rate), sources);
    }

    private static void writeColumns(Kryo kryo, Output out, List<Column> columns) {
        out.writeVarInt(columns.size(), true);
        for (Column c : columns) {
            out.writeString(c.name());
            out.writeVarInt(c.kind().ordinal(), true);
            out.writeVarInt(c.ops().size(), true);
            for (Op op : c.ops()) {
                kryo.writeClassAndObject(out, op);
            }
        }
    }

    /** A map of strings, in its keys' order (the same bytes for the same map). */
    private static void writeMap(Output out, Map<String, String> map) {
        Map<String, String> sorted = new TreeMap<>(map);
        out.writeVarInt(sorted.size(), true);
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            out.writeString(e.getKey());
            out.writeString(e.getValue());
        }
    }

    private static void writeLayout(Output out, RowLayout layout) {
        out.writeVarInt(layout.dense(), true);
        out.writeVarInt(layout.sparse(), true);
        out.writeVarInt(layout.listColumns().size(), true);
        for (int c : layout.listColumns()) {
            out.writeVarInt(c, true);
        }
        out.writeVarInt(layout.listSeparator(), true);
        out.writeVarInt(layout.generated(), true);
        for (int d : layout.generatedFrom()) {
            out.writeVarInt(d, true);
        }
    }

    private static void writeHotline(Output out, HotlineSettings h) {
        out.writeBoolean(h != null);
        if (h != null) {
            out.writeVarLong(h.budgetBytes(), true);
            out.writeVarInt(h.dim(), true);
            out.writeVarLong(h.windowRows(), true);
            out.writeDouble(h.sampleRate());
            out.writeVarInt(h.sampleRows(), true);
            out.writeVarInt(h.tracker().ordinal(), true);
            out.writeVarInt(h.trackerEntries(), true);
            out.writeDouble(h.decay());
            out.writeVarLong(h.windowMs(), true);
        }
    }

    /** CSV's, Avro's and Protobuf's settings, each after whether the input has them. */
    private static void writeEventFormats(Output out, PipelineSpec.Input input) {
        CsvOptions csv = input.csv();
        out.writeBoolean(csv != null);
        if (csv != null) {
            out.writeVarInt(csv.columns().size(), true);
            for (String c : csv.columns()) {
                out.writeString(c);
            }
            out.writeBoolean(csv.header());
            out.writeVarInt(csv.delimiter(), true);
        }
        AvroOptions avro = input.avro();
        out.writeBoolean(avro != null);
        if (avro != null) {
            out.writeString(avro.schemaFile());
            out.writeString(avro.schema());
            out.writeString(avro.registry());
        }
        ProtobufOptions protobuf = input.protobuf();
        out.writeBoolean(protobuf != null);
        if (protobuf != null) {
            out.writeString(protobuf.descriptorFile());
            byte[] set = protobuf.descriptorSet();
            out.writeVarInt(set.length, true);
            out.writeBytes(set);
            out.writeString(protobuf.message());
        }
    }

    @Override
    public PipelineSpec read(Kryo kryo, Input in, Class<? extends PipelineSpec> type) {
        String name = in.readString();
        int version = in.readVarInt(true);
        String format = in.readString();
        Optional<String> topic = Optional.ofNullable(in.readString());
        Optional<String> routeField = Optional.ofNullable(in.readString());
        Optional<String> routeValue = Optional.ofNullable(in.readString());
        List<Column> columns = readColumns(kryo, in);
        PipelineSpec.Output output =
                new PipelineSpec.Output(in.readString(), in.readBoolean(), in.readVarInt(true));
        int f = reading.format;
        Map<String, String> parquet = f >= 4 ? readMap(in) : new LinkedHashMap<>();
        RowLayout layout = f >= 5 ? readLayout(in) : RowLayout.CRITEO;
        HotlineSettings hotline = f >= 6 ? readHotline(in, f) : null;
        Map<String, String> fields = f >= 8 ? readMap(in) : new LinkedHashMap<>();
        CsvOptions csv = f >= 9 && in.readBoolean() ? readCsv(in) : null;
        AvroOptions avro =
                f >= 10 && in.readBoolean()
                        ? new AvroOptions(in.readString(), in.readString(), in.readString())
                        : null;
        ProtobufOptions protobuf = f >= 11 && in.readBoolean() ? readProtobuf(in) : null;
        EventTime time =
                f >= 12 && in.readBoolean()
                        ? new EventTime(
                                in.readString(), EventTime.Unit.values()[in.readVarInt(true)])
                        : null;
        LabelSpec labels = f >= 14 ? readLabels(in) : null;
        PipelineSpec.Input input =
                PipelineSpec.Input.builder()
                        .format(format)
                        .topic(topic)
                        .routeField(routeField)
                        .routeValue(routeValue)
                        .parquetColumns(parquet)
                        .layout(layout)
                        .fields(fields)
                        .csv(csv)
                        .avro(avro)
                        .protobuf(protobuf)
                        .eventTime(time)
                        .build();
        return new PipelineSpec(name, version, input, columns, output, hotline, labels);
    }

    private static List<Column> readColumns(Kryo kryo, Input in) {
        int n = in.readVarInt(true);
        List<Column> columns = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String column = in.readString();
            Kind kind = Kind.values()[in.readVarInt(true)];
            int ops = in.readVarInt(true);
            List<Op> chain = new ArrayList<>(ops);
            for (int j = 0; j < ops; j++) {
                chain.add((Op) kryo.readClassAndObject(in));
            }
            columns.add(new Column(column, kind, List.copyOf(chain)));
        }
        return List.copyOf(columns);
    }

    private static Map<String, String> readMap(Input in) {
        Map<String, String> map = new LinkedHashMap<>();
        int pairs = in.readVarInt(true);
        for (int i = 0; i < pairs; i++) {
            map.put(in.readString(), in.readString());
        }
        return map;
    }

    private static RowLayout readLayout(Input in) {
        int dense = in.readVarInt(true);
        int sparse = in.readVarInt(true);
        int lists = in.readVarInt(true);
        List<Integer> listColumns = new ArrayList<>(lists);
        for (int i = 0; i < lists; i++) {
            listColumns.add(in.readVarInt(true));
        }
        char separator = (char) in.readVarInt(true);
        int generated = in.readVarInt(true);
        List<Integer> generatedFrom = new ArrayList<>(generated);
        for (int i = 0; i < generated; i++) {
            generatedFrom.add(in.readVarInt(true));
        }
        return new RowLayout(dense, sparse, listColumns, separator, generatedFrom);
    }

    /**
     * Hotline's settings, after whether the spec has them (null: it has none); their window in
     * event time from format 13 on.
     */
    private static HotlineSettings readHotline(Input in, int format) {
        if (!in.readBoolean()) {
            return null;
        }
        long budget = in.readVarLong(true);
        int dim = in.readVarInt(true);
        long windowRows = in.readVarLong(true);
        double sample = in.readDouble();
        int sampleRows = in.readVarInt(true);
        HotlineSettings.Tracker tracker = HotlineSettings.Tracker.values()[in.readVarInt(true)];
        int trackerEntries = in.readVarInt(true);
        double decay = in.readDouble();
        long windowMs = format >= 13 ? in.readVarLong(true) : 0;
        return new HotlineSettings(
                budget,
                dim,
                windowRows,
                windowMs,
                sample,
                sampleRows,
                tracker,
                trackerEntries,
                decay);
    }

    private static CsvOptions readCsv(Input in) {
        int count = in.readVarInt(true);
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add(in.readString());
        }
        return new CsvOptions(names, in.readBoolean(), (char) in.readVarInt(true));
    }

    private static ProtobufOptions readProtobuf(Input in) {
        String file = in.readString();
        byte[] set = in.readBytes(in.readVarInt(true));
        return new ProtobufOptions(file, set, in.readString());
    }
}
