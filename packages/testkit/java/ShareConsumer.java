// Kafka's own KafkaShareConsumer (KIP-932) as one member of a share group, for interoperability
// tests of the share consumer. Launched by packages/testkit/src/java-share-consumer.ts as
//   java -cp '<classes>:<kafka libs>/*' ShareConsumer '<config as JSON>'
// with config {"bootstrap", "groupId", "topics": [...]}. Explicit acknowledgement: every record
// is accepted, and a record is reported only once commitSync said its partition's
// acknowledgements were applied, so what it prints is what it accepted.
//
// stdout, one JSON object per line:
//   {"t":"record","topic":"...","partition":0,"offset":"12","deliveryCount":1,"value":"..."}
//   {"t":"ack-failed","topic":"...","partition":0,"error":"..."}
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ShareConsumer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PrintStream OUT =
      new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  private static synchronized void emit(ObjectNode node) {
    OUT.println(node.toString());
    OUT.flush();
  }

  public static void main(String[] args) throws Exception {
    JsonNode config = JSON.readTree(args[0]);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.get("bootstrap").asText());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.get("groupId").asText());
    props.put("share.acknowledgement.mode", "explicit");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<String> topics = new ArrayList<>();
    for (JsonNode t : config.get("topics")) topics.add(t.asText());

    KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props);
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

    consumer.subscribe(topics);
    try {
      for (;;) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) continue;
        for (ConsumerRecord<byte[], byte[]> r : records) consumer.acknowledge(r, AcknowledgeType.ACCEPT);
        Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          Optional<KafkaException> error = Optional.empty();
          for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet())
            if (e.getKey().topic().equals(r.topic()) && e.getKey().partition() == r.partition())
              error = e.getValue();
          ObjectNode node = JSON.createObjectNode();
          node.put("topic", r.topic());
          node.put("partition", r.partition());
          if (error.isPresent()) {
            node.put("t", "ack-failed");
            node.put("offset", Long.toString(r.offset()));
            node.put("error", error.get().toString());
          } else {
            node.put("t", "record");
            node.put("offset", Long.toString(r.offset()));
            node.put("deliveryCount", r.deliveryCount().map(Short::intValue).orElse(-1));
            node.put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
          }
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
