// A Kafka KafkaConsumer in a classic group (group.protocol=classic), for tests that put it in
// one group with our members. Args: <bootstrap> <group> <topic> <assignor class>[,<class>...].
// Prints one line per rebalance callback, "ASSIGNED|REVOKED|LOST <t-p,...>", and after each
// ASSIGNED "OWNS <t-p,...>" (its whole assignment, sorted). When stdin says "close" or ends, it
// closes (LeaveGroup) and prints "CLOSED". Run with the pinned Kafka jars on the class path.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ClassicGroupMember {
  private static String labels(Collection<TopicPartition> partitions) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : partitions) out.add(tp.topic() + "-" + tp.partition());
    out.sort(null);
    return String.join(",", out);
  }

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("group.id", args[1]);
    props.put("group.protocol", "classic");
    props.put("partition.assignment.strategy", args[3]);
    props.put("session.timeout.ms", "10000");
    props.put("heartbeat.interval.ms", "500");
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    props.put("client.id", "java-classic-member");
    AtomicBoolean stop = new AtomicBoolean(false);
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) if (line.trim().equals("close")) break;
      } catch (Exception ignored) {
        // stdin gone: close as for "close"
      }
      stop.set(true);
    });
    reader.setDaemon(true);
    reader.start();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(args[2]), new ConsumerRebalanceListener() {
        private void report(String what, Collection<TopicPartition> partitions) {
          System.out.println(what + " " + labels(partitions));
          // Only after an assignment is consumer.assignment() the new one.
          if (what.equals("ASSIGNED")) System.out.println("OWNS " + labels(consumer.assignment()));
          System.out.flush();
        }
        @Override public void onPartitionsRevoked(Collection<TopicPartition> partitions) { report("REVOKED", partitions); }
        @Override public void onPartitionsAssigned(Collection<TopicPartition> partitions) { report("ASSIGNED", partitions); }
        @Override public void onPartitionsLost(Collection<TopicPartition> partitions) { report("LOST", partitions); }
      });
      while (!stop.get()) consumer.poll(Duration.ofMillis(100));
    }
    System.out.println("CLOSED");
    System.out.flush();
  }
}
