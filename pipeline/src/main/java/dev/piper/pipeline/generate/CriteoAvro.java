package dev.piper.pipeline.generate;

import dev.piper.pipeline.layout.HexIds;
import dev.piper.pipeline.layout.RowLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * A Criteo text line as an Avro record of named fields, as {@link CriteoEvents} makes a JSON event
 * of it: {@code label}, {@code I1..} and {@code C1..} as the layout names them; a label or dense
 * field an {@code int} when it is a decimal within 32 bits, else its text; a categorical field its
 * hexadecimal text; a list column's field an array of its ids; an empty field null. Read with
 * {@code input.format} {@code avro} and the same chains, the records decode to the text's rows.
 */
public final class CriteoAvro {

    private final RowLayout layout;
    private final Schema schema;
    private final String[] names;

    /** Whether a categorical id is carried as a {@code long} where it is valid hex. */
    private final boolean longIds;

    public CriteoAvro(RowLayout layout) {
        this(layout, false);
    }

    /**
     * With {@code longIds}, a categorical field of one id is {@code ["null", "long", "string"]}:
     * the id's value where its text is valid hexadecimal within 64 bits (what hex2int makes of it,
     * so the rows are the same), else its text; an Avro producer's typed ids.
     */
    public CriteoAvro(RowLayout layout, boolean longIds) {
        this.layout = layout;
        this.longIds = longIds;
        this.names = new String[layout.fields()];
        Schema nul = Schema.create(Schema.Type.NULL);
        Schema text = Schema.create(Schema.Type.STRING);
        Schema number = Schema.createUnion(nul, Schema.create(Schema.Type.INT), text);
        List<Schema.Field> fields = new ArrayList<>();
        for (int i = 0; i < layout.inputFields(); i++) {
            int f = layout.fieldOfInput(i);
            names[f] = layout.fieldName(f);
            int c = f - layout.labelDenseWidth();
            Schema type;
            if (c < 0) {
                type = number;
            } else if (layout.isList(c)) {
                type = Schema.createUnion(nul, Schema.createArray(text));
            } else if (longIds) {
                type = Schema.createUnion(nul, Schema.create(Schema.Type.LONG), text);
            } else {
                type = Schema.createUnion(nul, text);
            }
            fields.add(new Schema.Field(names[f], type, null, Schema.Field.NULL_DEFAULT_VALUE));
        }
        this.schema = Schema.createRecord("CriteoLine", null, "dev.piper.events", false, fields);
    }

    /** The records' schema. */
    public Schema schema() {
        return schema;
    }

    /**
     * The record of {@code line} (without its line break), or null if it has not the layout's
     * number of fields (no record can carry it).
     */
    public GenericRecord toRecord(String line) {
        String[] fields = CriteoEvents.split(line, '\t');
        if (fields.length != layout.inputFields()) {
            return null;
        }
        GenericRecord r = new GenericData.Record(schema);
        for (int i = 0; i < fields.length; i++) {
            int f = layout.fieldOfInput(i);
            String text = fields[i];
            if (text.isEmpty()) {
                continue;
            }
            int c = f - layout.labelDenseWidth();
            if (c >= 0 && layout.isList(c)) {
                r.put(names[f], Arrays.asList(CriteoEvents.split(text, layout.listSeparator())));
            } else if (c < 0 && CriteoEvents.isInt32(text)) {
                r.put(names[f], Integer.parseInt(text));
            } else if (c >= 0
                    && longIds
                    && HexIds.status(text.toCharArray(), 0, text.length()) == HexIds.OK) {
                char[] digits = text.toCharArray();
                r.put(names[f], HexIds.value(digits, 0, digits.length));
            } else {
                r.put(names[f], text);
            }
        }
        return r;
    }
}
