package dev.piper.connectors.parquet.source.reader;

import dev.piper.connectors.parquet.ParquetEvents;
import dev.piper.connectors.parquet.ParquetEvents.Kind;
import dev.piper.connectors.parquet.ParquetEvents.Node;
import dev.piper.core.decode.TypedEvents;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;

/**
 * Parquet's record assembly (parquet-column's {@code RecordReader}) into {@link TypedEvents}: a
 * converter per node of the bound paths ({@link ParquetEvents}) hands each value it is given to the
 * columns that read it, a list's elements to its list columns (and to the columns that read one
 * element by its index). A null value or group calls no converter, so its columns stay missing, as
 * an absent JSON field; a null element of a list is the list's dead letter ({@code
 * categorical_not_hex}, as in JSON).
 *
 * <p>Not thread-safe; one per reader.
 */
final class EventConverters extends RecordMaterializer<Boolean> {

    private final Group root;

    EventConverters(ParquetEvents binding, TypedEvents events) {
        this.root = new Group(binding.root(), events, true);
    }

    @Override
    public Boolean getCurrentRecord() {
        return Boolean.TRUE; // the record is in the events' rows
    }

    @Override
    public GroupConverter getRootConverter() {
        return root;
    }

    /** The converter of {@code node}: its value, its list, or its group's children. */
    private static Converter of(Node node, TypedEvents events, List<ListValues> bare) {
        if (node.shape() == null) {
            return node.kind() != null
                    ? new Value(node.targets(), node.kind(), events)
                    : new Group(node, events, false);
        }
        ListValues list = new ListValues(node, events);
        return switch (node.shape()) {
            case THREE_LEVEL -> new ListGroup(list, new ElementGroup(list));
            case TWO_LEVEL -> new ListGroup(list, new Element(list, true));
            case BARE -> {
                bare.add(list); // opened and closed with its enclosing group
                yield new Element(list, true);
            }
        };
    }

    /**
     * A group on the paths (the record itself, for the root): its children's converters; its bare
     * repeated lists start and end with it.
     */
    private static final class Group extends GroupConverter {
        private final Converter[] children;
        private final ListValues[] bare;
        private final TypedEvents events;
        private final boolean record;

        Group(Node node, TypedEvents events, boolean record) {
            this.events = events;
            this.record = record;
            List<Node> nodes = node.children();
            List<ListValues> lists = new ArrayList<>();
            children = new Converter[nodes.size()];
            for (int i = 0; i < children.length; i++) {
                children[i] = of(nodes.get(i), events, lists);
            }
            bare = lists.toArray(new ListValues[0]);
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return children[fieldIndex];
        }

        @Override
        public void start() {
            if (record) {
                events.startEvent();
            }
            for (ListValues list : bare) {
                list.open();
            }
        }

        @Override
        public void end() {
            for (ListValues list : bare) {
                list.close();
            }
        }
    }

    /** A value at one or more columns' paths. */
    private static final class Value extends PrimitiveConverter {
        private final int[] targets;
        private final boolean unsigned;
        private final TypedEvents events;

        Value(int[] targets, Kind kind, TypedEvents events) {
            this.targets = targets;
            this.unsigned = kind == Kind.UINT32;
            this.events = events;
        }

        @Override
        public void addBoolean(boolean value) {
            events.bool(targets, value);
        }

        @Override
        public void addInt(int value) {
            events.integer(targets, unsigned ? value & 0xffffffffL : value);
        }

        @Override
        public void addLong(long value) {
            events.integer(targets, value);
        }

        @Override
        public void addFloat(float value) {
            events.real(targets, value, "float");
        }

        @Override
        public void addDouble(double value) {
            events.real(targets, value, "double");
        }

        @Override
        public void addBinary(Binary value) {
            ByteBuffer b = value.toByteBuffer();
            if (b.hasArray()) {
                int s = b.arrayOffset() + b.position();
                events.text(targets, b.array(), s, s + b.remaining());
            } else {
                byte[] copy = value.getBytes();
                events.text(targets, copy, 0, copy.length);
            }
        }
    }

    /** A LIST-annotated group: the list starts and ends with it. */
    private static final class ListGroup extends GroupConverter {
        private final ListValues list;
        private final Converter repeated;

        ListGroup(ListValues list, Converter repeated) {
            this.list = list;
            this.repeated = repeated;
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return repeated;
        }

        @Override
        public void start() {
            list.open();
        }

        @Override
        public void end() {
            list.close();
        }
    }

    /** The repeated group of a three-level LIST: one element each, null if no value comes. */
    private static final class ElementGroup extends GroupConverter {
        private final ListValues list;
        private final Element element;

        ElementGroup(ListValues list) {
            this.list = list;
            this.element = new Element(list, false);
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return element;
        }

        @Override
        public void start() {
            list.startElement();
        }

        @Override
        public void end() {
            list.endElement();
        }
    }

    /** A list's element values; {@code each} when every value is an element of its own. */
    private static final class Element extends PrimitiveConverter {
        private final ListValues list;
        private final boolean each;

        Element(ListValues list, boolean each) {
            this.list = list;
            this.each = each;
        }

        private void done() {
            if (each) {
                list.endElement();
            }
        }

        @Override
        public void addBoolean(boolean value) {
            list.bool(value);
            done();
        }

        @Override
        public void addInt(int value) {
            list.integer(list.unsigned ? value & 0xffffffffL : value);
            done();
        }

        @Override
        public void addLong(long value) {
            list.integer(value);
            done();
        }

        @Override
        public void addFloat(float value) {
            list.real(value, "float");
            done();
        }

        @Override
        public void addDouble(double value) {
            list.real(value, "double");
            done();
        }

        @Override
        public void addBinary(Binary value) {
            ByteBuffer b = value.toByteBuffer();
            if (b.hasArray()) {
                int s = b.arrayOffset() + b.position();
                list.text(b.array(), s, s + b.remaining());
            } else {
                byte[] copy = value.getBytes();
                list.text(copy, 0, copy.length);
            }
            done();
        }
    }

    /**
     * One list node's row: its elements to the list columns (the first, whose list {@link
     * TypedEvents#endList} copies to the others) and element {@code i} to the columns reading it.
     */
    private static final class ListValues {
        private final Node node;
        private final int[] targets;
        private final TypedEvents events;
        final boolean unsigned;

        /** The first list column reading the list, or -1 (none, or not opened). */
        private int first = -1;

        private int index;
        private boolean seen;

        ListValues(Node node, TypedEvents events) {
            this.node = node;
            this.targets = node.targets();
            this.events = events;
            this.unsigned = node.kind() == Kind.UINT32;
        }

        void open() {
            first = targets.length > 0 ? events.startList(targets) : -1;
            index = 0;
            seen = false;
        }

        void close() {
            if (first >= 0) {
                events.endList(targets, first);
            }
            first = -1;
        }

        void startElement() {
            seen = false;
        }

        /** Ends the current element; one that had no value is a null element. */
        void endElement() {
            if (!seen && first >= 0) {
                events.listNull(first, index);
            }
            index++;
            seen = false;
        }

        void integer(long v) {
            seen = true;
            if (first >= 0) {
                events.listInteger(first, v);
            }
            int[] one = node.element(index);
            if (one != null) {
                events.integer(one, v);
            }
        }

        void text(byte[] b, int s, int e) {
            seen = true;
            if (first >= 0) {
                events.listText(first, index, b, s, e);
            }
            int[] one = node.element(index);
            if (one != null) {
                events.text(one, b, s, e);
            }
        }

        /** A boolean element: only a column reading this element takes it (bound so). */
        void bool(boolean v) {
            seen = true;
            int[] one = node.element(index);
            if (one != null) {
                events.bool(one, v);
            }
        }

        /** A float or double element: only a column reading this element takes it. */
        void real(double v, String type) {
            seen = true;
            int[] one = node.element(index);
            if (one != null) {
                events.real(one, v, type);
            }
        }
    }
}
