// Runs Kafka's own RangeAssignor and CooperativeStickyAssignor on inputs read from stdin, one
// case a line, and prints each member's partitions, one case a line. Run with the pinned Kafka
// jars on the class path (Java's single-file source launcher).
//
// Input line:  <assignor> '|' <topic>:<count>,... '|' <member>[ '#' <member> ...]
//   member:    <memberId> ';' <groupInstanceId or -> ';' <topic>,... ';' <topic>:<p>,... ';' <generation>
//   (members are put into the subscription map in the order given; names hold no separators)
// Output line: <memberId>=<topic>:<p>,... [ ' ' ...], members in input order, partitions sorted.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;

public class ClassicAssignorVectors {
  private static List<String> split(String s, String sep) {
    List<String> out = new ArrayList<>();
    if (s.isEmpty()) return out;
    for (String part : s.split(sep, -1)) out.add(part);
    return out;
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      String[] parts = line.split("\\|", -1);
      Map<String, Integer> partitionsPerTopic = new HashMap<>();
      for (String t : split(parts[1], ",")) {
        String[] tc = t.split(":");
        partitionsPerTopic.put(tc[0], Integer.parseInt(tc[1]));
      }
      Map<String, Subscription> subscriptions = new HashMap<>();
      List<String> order = new ArrayList<>();
      for (String m : split(parts[2], "#")) {
        String[] f = m.split(";", -1);
        List<TopicPartition> owned = new ArrayList<>();
        for (String tp : split(f[3], ",")) {
          String[] x = tp.split(":");
          owned.add(new TopicPartition(x[0], Integer.parseInt(x[1])));
        }
        Subscription s = new Subscription(split(f[2], ","), null, owned, Integer.parseInt(f[4]), Optional.empty());
        if (!f[1].equals("-")) s.setGroupInstanceId(Optional.of(f[1]));
        subscriptions.put(f[0], s);
        order.add(f[0]);
      }
      Map<String, List<TopicPartition>> result = parts[0].equals("range")
          ? new RangeAssignor().assign(partitionsPerTopic, subscriptions)
          : new CooperativeStickyAssignor().assign(partitionsPerTopic, subscriptions);
      List<String> members = new ArrayList<>();
      for (String member : order) {
        List<TopicPartition> tps = new ArrayList<>(result.getOrDefault(member, List.of()));
        tps.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        List<String> labels = new ArrayList<>();
        for (TopicPartition tp : tps) labels.add(tp.topic() + ":" + tp.partition());
        members.add(member + "=" + String.join(",", labels));
      }
      out.append(String.join(" ", members)).append('\n');
    }
    System.out.print(out);
  }
}
