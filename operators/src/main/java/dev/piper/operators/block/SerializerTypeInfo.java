package dev.piper.operators.block;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information that always uses one dedicated serializer, so that block types never fall back
 * to Kryo (the job runs with {@code pipeline.generic-types: false}).
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this.type = Objects.requireNonNull(type);
        this.serializer = Objects.requireNonNull(serializer);
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return type.getSimpleName();
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof SerializerTypeInfo<?> other
                && other.type == type
                && other.serializer.equals(serializer);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + serializer.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof SerializerTypeInfo;
    }
}
