package dev.piper.connectors.kafka;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** Creates a topic with a chosen partition count unless it exists. */
public final class TopicCreation {

    private TopicCreation() {}

    /**
     * Creates {@code topic} with {@code partitions} partitions and the broker's default replication
     * if it does not exist; otherwise reports its partition count when that differs.
     */
    public static void createIfAbsent(
            String bootstrapServers,
            Map<String, String> properties,
            String topic,
            int partitions,
            PrintStream progress)
            throws Exception {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                int existing =
                        admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size();
                if (existing != partitions) {
                    progress.printf(
                            "topic %s exists with %d partitions; left as it is%n", topic, existing);
                }
                return;
            }
            admin.createTopics(
                            List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            progress.printf("created topic %s (%d partitions)%n", topic, partitions);
        }
    }
}
