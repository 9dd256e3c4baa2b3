// Kafka's own KafkaConsumer as one member of a consumer group, for interoperability tests of
// the group consumer. Launched by packages/testkit/src/java-consumer.ts as
//   java -cp '<classes>:<kafka libs>/*' GroupConsumer '<config as JSON>'
// with config {"bootstrap", "groupId", "topics": [...], "groupProtocol": "consumer"|"classic",
// "autoOffsetReset", "isolationLevel"}. Auto-commit is on, and the rebalance listener commits
// what was consumed before partitions are revoked, so every revocation and the close commit.
//
// stdout, one JSON object per line:
//   {"t":"assigned","partitions":["topic-0",...]}   {"t":"revoked",...}   {"t":"lost",...}
//   {"t":"record","topic":"...","partition":0,"offset":"12","value":"..."} (value as UTF-8)
//   {"t":"closed"}
// A line "stop" on stdin (or stdin closing) wakes the consumer, which closes and exits.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class GroupConsumer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PrintStream OUT =
      new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  private static synchronized void emit(ObjectNode node) {
    OUT.println(node.toString());
    OUT.flush();
  }

  private static void partitions(String kind, Collection<TopicPartition> partitions) {
    ObjectNode node = JSON.createObjectNode();
    node.put("t", kind);
    var list = node.putArray("partitions");
    for (TopicPartition tp : partitions) list.add(tp.topic() + "-" + tp.partition());
    emit(node);
  }

  public static void main(String[] args) throws Exception {
    JsonNode config = JSON.readTree(args[0]);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.get("bootstrap").asText());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.get("groupId").asText());
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, config.path("groupProtocol").asText("consumer"));
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, config.path("autoOffsetReset").asText("earliest"));
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, config.path("isolationLevel").asText("read_uncommitted"));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    if ("classic".equals(config.path("groupProtocol").asText("consumer")))
      props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
    List<String> topics = new ArrayList<>();
    for (JsonNode t : config.get("topics")) topics.add(t.asText());

    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
    Thread stdin = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) if (line.trim().equals("stop")) break;
      } catch (Exception ignored) {
        // stdin gone: stop as well
      }
      consumer.wakeup();
    });
    stdin.setDaemon(true);
    stdin.start();

    consumer.subscribe(topics, new ConsumerRebalanceListener() {
      @Override public void onPartitionsRevoked(Collection<TopicPartition> ps) {
        // Auto-commit alone leaves a gap under the classic cooperative protocol: it commits before
        // the JoinGroup, records keep flowing while the rebalance runs, and the partitions revoked
        // at its end go to their next owner without those. Committing what was consumed here is
        // the commit on revocation an application wants (the KIP-848 consumer already does it).
        if (!ps.isEmpty()) {
          try {
            consumer.commitSync();
          } catch (RuntimeException e) {
            System.err.println("commit on revocation failed: " + e);
          }
        }
        partitions("revoked", ps);
      }
      @Override public void onPartitionsAssigned(Collection<TopicPartition> ps) { partitions("assigned", ps); }
      @Override public void onPartitionsLost(Collection<TopicPartition> ps) { partitions("lost", ps); }
    });
    try {
      for (;;) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          ObjectNode node = JSON.createObjectNode();
          node.put("t", "record");
          node.put("topic", r.topic());
          node.put("partition", r.partition());
          node.put("offset", Long.toString(r.offset()));
          node.put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
          emit(node);
        }
      }
    } catch (WakeupException stopping) {
      // asked to stop
    } finally {
      consumer.close(Duration.ofSeconds(30));
      ObjectNode node = JSON.createObjectNode();
      node.put("t", "closed");
      emit(node);
    }
  }
}
