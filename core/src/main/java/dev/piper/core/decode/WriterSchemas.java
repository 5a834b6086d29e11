package dev.piper.core.decode;

import java.io.IOException;

/**
 * Where an Avro decoder finds the writer schema of a record in Confluent's wire format: a schema
 * registry, looked up by the id each record carries ({@link SchemaRegistryClient}).
 */
public interface WriterSchemas {

    /**
     * The schema (its JSON) registered under {@code id}, or null if the registry has none.
     *
     * @throws IOException if the registry cannot be asked (unreachable, or answers with an error
     *     other than "not found")
     */
    String schema(int id) throws IOException;

    /** Where the schemas come from, for messages. */
    String describe();
}
