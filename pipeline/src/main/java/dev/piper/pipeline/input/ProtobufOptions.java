package dev.piper.pipeline.input;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a Protobuf input's events are ({@code input.format} {@code protobuf}): a descriptor set
 * ({@code input.descriptor}, the file {@code protoc --include_imports --descriptor_set_out} writes,
 * read when the spec is parsed) and the message each event is ({@code input.message}, its full
 * name). Kafka records hold one message each; a file holds length-delimited messages (a varint
 * length before each, as {@code writeDelimitedTo} writes them).
 *
 * @param descriptorFile the {@code input.descriptor} path as the spec gives it
 * @param descriptorSet the file's bytes: a serialized {@code FileDescriptorSet}
 * @param message the events' message, its full name ({@code shop.Click})
 */
public record ProtobufOptions(String descriptorFile, byte[] descriptorSet, String message)
        implements Serializable {

    public ProtobufOptions {
        Objects.requireNonNull(descriptorFile, "descriptorFile");
        descriptorSet = descriptorSet.clone();
        Objects.requireNonNull(message, "message");
    }

    @Override
    public byte[] descriptorSet() {
        return descriptorSet.clone();
    }

    /** The events' message type, built from the descriptor set. */
    public Descriptor descriptor() {
        return find(descriptorSet, message);
    }

    /**
     * Message {@code message} of descriptor set {@code set}.
     *
     * @throws IllegalArgumentException if the bytes are no descriptor set, a file's imports are not
     *     in it, or it has no such message (naming those it has)
     */
    public static Descriptor find(byte[] set, String message) {
        FileDescriptorSet files;
        try {
            files = FileDescriptorSet.parseFrom(set);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException(
                    "not a protobuf descriptor set: " + e.getMessage(), e);
        }
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (FileDescriptorProto f : files.getFileList()) {
            protos.put(f.getName(), f);
        }
        Map<String, Descriptors.FileDescriptor> built = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (FileDescriptorProto f : files.getFileList()) {
            Descriptors.FileDescriptor file = build(f.getName(), protos, built);
            for (Descriptor d : file.getMessageTypes()) {
                collect(d, names);
                Descriptor found = findIn(d, message);
                if (found != null) {
                    return found;
                }
            }
        }
        throw new IllegalArgumentException(
                "no message \"" + message + "\" in the descriptor set (it has " + names + ")");
    }

    private static Descriptor findIn(Descriptor d, String message) {
        if (d.getFullName().equals(message)) {
            return d;
        }
        for (Descriptor nested : d.getNestedTypes()) {
            Descriptor found = findIn(nested, message);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static void collect(Descriptor d, List<String> names) {
        if (!d.getOptions().getMapEntry()) {
            names.add(d.getFullName());
        }
        d.getNestedTypes().forEach(n -> collect(n, names));
    }

    private static Descriptors.FileDescriptor build(
            String name,
            Map<String, FileDescriptorProto> protos,
            Map<String, Descriptors.FileDescriptor> built) {
        Descriptors.FileDescriptor done = built.get(name);
        if (done != null) {
            return done;
        }
        FileDescriptorProto proto = protos.get(name);
        if (proto == null) {
            throw new IllegalArgumentException(
                    "the descriptor set lacks " + name + " (protoc's --include_imports adds it)");
        }
        List<Descriptors.FileDescriptor> deps = new ArrayList<>();
        for (String dep : proto.getDependencyList()) {
            deps.add(build(dep, protos, built));
        }
        try {
            Descriptors.FileDescriptor file =
                    Descriptors.FileDescriptor.buildFrom(
                            proto, deps.toArray(new Descriptors.FileDescriptor[0]));
            built.put(name, file);
            return file;
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Why {@code path} leads nowhere in messages of {@code message}, or null if it leads to a
     * value: a field the message has not, a step into a field that is no message, or an element of
     * one that is not repeated.
     */
    public static String problem(Descriptor message, FieldPath path) {
        Descriptor m = message;
        FieldDescriptor field = null;
        boolean element = false;
        StringBuilder at = new StringBuilder();
        for (FieldPath.Segment step : path.segments()) {
            if (step.isField()) {
                if (field != null
                        && (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE
                                || field.isRepeated() && !element)) {
                    return "\"" + at + "\" is " + kind(field, element) + ", not a message";
                }
                if (field != null) {
                    m = field.getMessageType();
                }
                FieldDescriptor f = m.findFieldByName(step.name());
                if (f == null) {
                    return "message "
                            + m.getFullName()
                            + (at.length() == 0 ? "" : " (at \"" + at + "\")")
                            + " has no field \""
                            + step.name()
                            + "\"";
                }
                at.append(at.length() == 0 ? "" : ".").append(step.name());
                field = f;
                element = false;
            } else {
                if (!field.isRepeated() || element) {
                    return "\"" + at + "\" is " + kind(field, element) + ", not repeated";
                }
                at.append(step);
                element = true;
            }
        }
        return null;
    }

    private static String kind(FieldDescriptor f, boolean element) {
        return (f.isRepeated() && !element ? "a repeated " : "a ")
                + f.getType().name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProtobufOptions p
                && descriptorFile.equals(p.descriptorFile)
                && Arrays.equals(descriptorSet, p.descriptorSet)
                && message.equals(p.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(descriptorFile, Arrays.hashCode(descriptorSet), message);
    }

    @Override
    public String toString() {
        return "ProtobufOptions{" + descriptorFile + ", " + message + "}";
    }
}
