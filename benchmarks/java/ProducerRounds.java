import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's Java producer, cold and warm, in one JVM: the client suite's Java contestant.
 *
 * <p>Sends `warmup` records untimed, then `rounds` rounds of `records` records each to
 * partition 0 of the topic (record i carries value i % pool, the values file one per line),
 * with send(record, callback) as applications use it, and flush() at the end of each round.
 * Each round prints one line:
 *
 * <pre>ROUND n records/s cpu-us-per-record allocated-bytes-per-record</pre>
 *
 * CPU is the process's (every thread: sender, GC, JIT), allocation the sum over the live
 * threads of com.sun.management.ThreadMXBean's allocated bytes, both over the round only.
 * Round 1 is the cold producer (a fresh JVM after the same warm-up the Node contestants get);
 * the last rounds are the warm one.
 *
 * <p>Arguments: bootstrap topic valuesFile warmup records rounds compression lingerMs
 * batchSize maxInFlight
 */
public final class ProducerRounds {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    List<byte[]> values = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[2]), StandardCharsets.US_ASCII)) {
      if (!line.isEmpty()) values.add(line.getBytes(StandardCharsets.US_ASCII));
    }
    int warmup = Integer.parseInt(args[3]);
    int records = Integer.parseInt(args[4]);
    int rounds = Integer.parseInt(args[5]);
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, args[6]);
    props.put(ProducerConfig.LINGER_MS_CONFIG, args[7]);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, args[8]);
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, args[9]);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      int pool = values.size();
      long sent = 0;
      for (int round = 0; round <= rounds; round++) {
        int n = round == 0 ? warmup : records;
        Map<Long, Long> alloc0 = allocated(threads);
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++, sent++) {
          byte[] value = values.get((int) (sent % pool));
          producer.send(
              new ProducerRecord<>(topic, 0, null, value),
              (metadata, e) -> {
                if (e != null) failed.compareAndSet(null, e);
              });
        }
        producer.flush();
        long elapsed = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        Map<Long, Long> alloc1 = allocated(threads);
        long bytes = 0;
        for (Map.Entry<Long, Long> e : alloc1.entrySet()) {
          Long before = alloc0.get(e.getKey());
          bytes += e.getValue() - (before == null ? 0 : before);
        }
        if (failed.get() != null) throw failed.get();
        if (round > 0) {
          System.out.printf(
              "ROUND %d %.1f %.3f %.1f%n",
              round, n / (elapsed / 1e9), cpu / 1e3 / n, (double) bytes / n);
        }
      }
    }
  }

  private static Map<Long, Long> allocated(com.sun.management.ThreadMXBean threads) {
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, Long> out = new HashMap<>();
    for (int i = 0; i < ids.length; i++) if (bytes[i] >= 0) out.put(ids[i], bytes[i]);
    return out;
  }
}
