package dev.piper.pipeline.generate;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import dev.piper.pipeline.layout.RowLayout;
import java.util.Arrays;

/**
 * A Criteo text line as a Protobuf message of named fields, as {@link CriteoEvents} makes a JSON
 * event of it: message {@code dev.piper.events.CriteoLine} (proto2, every field optional, so an
 * absent one is missing) with {@code label} and {@code I1..} as {@code sint32}, {@code C1..} as
 * their hexadecimal text ({@code string}; a list column's field {@code repeated string}), an empty
 * field absent. Read with {@code input.format} {@code protobuf} and the same chains, the messages
 * decode to the text's rows. A line whose label or dense field is text but no 32-bit decimal has no
 * message (no field can carry it), nor has one of another field count.
 */
public final class CriteoProtobuf {

    /** The message's full name. */
    public static final String MESSAGE = "dev.piper.events.CriteoLine";

    private final RowLayout layout;
    private final FileDescriptorProto file;
    private final Descriptor descriptor;
    private final Descriptors.FieldDescriptor[] fields;

    public CriteoProtobuf(RowLayout layout) {
        this.layout = layout;
        DescriptorProto.Builder message = DescriptorProto.newBuilder().setName("CriteoLine");
        for (int i = 0; i < layout.inputFields(); i++) {
            int f = layout.fieldOfInput(i);
            int c = f - layout.labelDenseWidth();
            boolean list = c >= 0 && layout.isList(c);
            message.addField(
                    FieldDescriptorProto.newBuilder()
                            .setName(layout.fieldName(f))
                            .setNumber(i + 1)
                            .setLabel(
                                    list
                                            ? FieldDescriptorProto.Label.LABEL_REPEATED
                                            : FieldDescriptorProto.Label.LABEL_OPTIONAL)
                            .setType(
                                    c < 0
                                            ? FieldDescriptorProto.Type.TYPE_SINT32
                                            : FieldDescriptorProto.Type.TYPE_STRING));
        }
        this.file =
                FileDescriptorProto.newBuilder()
                        .setName("dev/piper/events/criteo_line.proto")
                        .setPackage("dev.piper.events")
                        .setSyntax("proto2")
                        .addMessageType(message)
                        .build();
        try {
            this.descriptor =
                    Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[0])
                            .findMessageTypeByName("CriteoLine");
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
        this.fields = new Descriptors.FieldDescriptor[layout.fields()];
        for (int i = 0; i < layout.inputFields(); i++) {
            fields[layout.fieldOfInput(i)] = descriptor.findFieldByNumber(i + 1);
        }
    }

    /** The message type. */
    public Descriptor descriptor() {
        return descriptor;
    }

    /** A descriptor set holding the message's file, as {@code input.descriptor} takes it. */
    public byte[] descriptorSet() {
        return FileDescriptorSet.newBuilder().addFile(file).build().toByteArray();
    }

    /** The message of {@code line} (without its line break), or null if no message carries it. */
    public DynamicMessage toMessage(String line) {
        String[] values = CriteoEvents.split(line, '\t');
        if (values.length != layout.inputFields()) {
            return null;
        }
        DynamicMessage.Builder m = DynamicMessage.newBuilder(descriptor);
        for (int i = 0; i < values.length; i++) {
            int f = layout.fieldOfInput(i);
            String text = values[i];
            if (text.isEmpty()) {
                continue;
            }
            int c = f - layout.labelDenseWidth();
            if (c < 0) {
                if (!CriteoEvents.isInt32(text)) {
                    return null;
                }
                m.setField(fields[f], Integer.parseInt(text));
            } else if (layout.isList(c)) {
                m.setField(
                        fields[f], Arrays.asList(CriteoEvents.split(text, layout.listSeparator())));
            } else {
                m.setField(fields[f], text);
            }
        }
        return m.build();
    }
}
