// Formats the storage of several KRaft nodes in one JVM: Kafka's own StorageTool, called once
// per node. Starting one JVM instead of one per node saves seconds on a small machine.
//
// Usage: java -cp '<kafka libs>/*' FormatStorage.java <StorageTool args for node 1> --next-node <args for node 2> ...
// Exit status 0 when every node formatted, else 1 (StorageTool's own messages on stdout/stderr).

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public class FormatStorage {
  public static void main(String[] argv) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    List<List<String>> groups = new ArrayList<>();
    groups.add(new ArrayList<>());
    for (String arg : argv) {
      if (arg.equals("--next-node")) groups.add(new ArrayList<>());
      else groups.get(groups.size() - 1).add(arg);
    }
    int status = 0;
    for (List<String> group : groups) {
      int code;
      try {
        code = kafka.tools.StorageTool.execute(group.toArray(new String[0]), out);
      } catch (Throwable t) {
        System.err.println("format failed for " + String.join(" ", group) + ": " + t);
        code = 1;
      }
      if (code != 0) {
        System.err.println("StorageTool exit " + code + " for " + String.join(" ", group));
        status = 1;
      }
    }
    System.out.flush();
    System.exit(status);
  }
}
