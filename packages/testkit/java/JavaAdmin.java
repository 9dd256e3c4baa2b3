// The testkit's second, independent Kafka client: Apache Kafka's own Java AdminClient,
// KafkaProducer and KafkaConsumer, driven by TypeScript over JSON lines on stdin/stdout.
//
// Launched by packages/testkit/src/java-admin.ts as
//   java -cp '<kafka libs>/*' JavaAdmin.java '<client config as JSON>'
// (or from a javac-compiled copy of this file). The client config is a flat map of Java client
// properties (bootstrap.servers, security.protocol, sasl.*, ssl.*) shared by every client this
// process creates.
//
// Protocol: one JSON object per line in each direction.
//   request:  {"id": 7, "op": "describeTopic", "args": {...}}
//   response: {"id": 7, "ok": true, "result": ...}
//             {"id": 7, "ok": false, "error": {"type": "UnknownTopicOrPartitionException", "message": "..."}}
// Requests run concurrently on a thread pool, so a long consume does not hold up an admin call.
// Byte payloads (keys, values, header values) travel as base64 strings, null as JSON null.
// int64 values (offsets, timestamps) travel as decimal strings so no precision is lost.
// The process exits when stdin closes (its parent went away) or on {"op": "close"}.
//
// Plain Java 17, no build: the only dependencies are the Kafka release's own jars (clients,
// Jackson from the same classpath).

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class JavaAdmin {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static final Map<String, String> CLIENT_CONFIG = new HashMap<>();
  private static volatile Admin admin;

  public static void main(String[] argv) throws Exception {
    // Kafka's clients log through slf4j; anything they print must not reach stdout, which is
    // reserved for protocol lines. The launcher points log4j2 at stderr.
    System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
    if (argv.length > 0) {
      JsonNode cfg = JSON.readTree(argv[0]);
      for (Iterator<Map.Entry<String, JsonNode>> it = cfg.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        CLIENT_CONFIG.put(e.getKey(), e.getValue().asText());
      }
    }
    ExecutorService pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "java-admin-request");
      t.setDaemon(true);
      return t;
    });
    emit(JSON.createObjectNode().put("ready", true));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      JsonNode request;
      try {
        request = JSON.readTree(line);
      } catch (Exception e) {
        ObjectNode err = JSON.createObjectNode();
        err.putNull("id");
        err.put("ok", false);
        err.set("error", error("BadRequest", "unparseable request line: " + e.getMessage()));
        emit(err);
        continue;
      }
      if ("close".equals(request.path("op").asText())) break;
      pool.submit(() -> handle(request));
    }
    pool.shutdownNow();
    Admin a = admin;
    if (a != null) a.close(Duration.ofSeconds(2));
    System.exit(0);
  }

  private static void handle(JsonNode request) {
    ObjectNode response = JSON.createObjectNode();
    response.set("id", request.path("id"));
    try {
      JsonNode result = dispatch(request.path("op").asText(), request.path("args"));
      response.put("ok", true);
      response.set("result", result);
    } catch (Throwable t) {
      Throwable cause = t;
      // Unwrap the futures' wrappers, and a bare KafkaException around a more specific one
      // (the producer wraps a metadata TimeoutException that way), so `type` is the real reason.
      while ((cause instanceof ExecutionException
              || cause instanceof java.util.concurrent.CompletionException
              || cause.getClass() == org.apache.kafka.common.KafkaException.class)
          && cause.getCause() != null) {
        cause = cause.getCause();
      }
      response.put("ok", false);
      response.set("error", error(cause.getClass().getSimpleName(), String.valueOf(cause.getMessage())));
    }
    emit(response);
  }

  private static synchronized void emit(JsonNode node) {
    try {
      OUT.println(JSON.writeValueAsString(node));
    } catch (Exception e) {
      System.err.println("java-admin: cannot write response: " + e);
    }
  }

  private static ObjectNode error(String type, String message) {
    ObjectNode e = JSON.createObjectNode();
    e.put("type", type);
    e.put("message", message);
    return e;
  }

  private static Admin admin() {
    Admin a = admin;
    if (a == null) {
      synchronized (JavaAdmin.class) {
        if (admin == null) admin = Admin.create(props(Map.of()));
        a = admin;
      }
    }
    return a;
  }

  private static Properties props(Map<String, String> extra) {
    Properties p = new Properties();
    p.putAll(CLIENT_CONFIG);
    p.putAll(extra);
    return p;
  }

  private static Map<String, String> stringMap(JsonNode node) {
    Map<String, String> m = new HashMap<>();
    if (node == null || !node.isObject()) return m;
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      m.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
    }
    return m;
  }

  private static List<Integer> intList(JsonNode node) {
    List<Integer> out = new ArrayList<>();
    if (node != null && node.isArray()) for (JsonNode n : node) out.add(n.asInt());
    return out;
  }

  private static byte[] bytes(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) return null;
    return Base64.getDecoder().decode(node.asText());
  }

  private static String b64(byte[] b) {
    return b == null ? null : Base64.getEncoder().encodeToString(b);
  }

  private static JsonNode dispatch(String op, JsonNode a) throws Exception {
    switch (op) {
      case "ping":
        return JSON.getNodeFactory().textNode("pong");
      case "createTopic":
        return createTopic(a);
      case "describeTopic":
        return describeTopic(a.path("name").asText());
      case "listTopics":
        return listTopics(a.path("internal").asBoolean(false));
      case "deleteTopic":
        admin().deleteTopics(List.of(a.path("name").asText())).all().get();
        return JSON.nullNode();
      case "describeCluster":
        return describeCluster(a.path("timeoutMs").asInt(0));
      case "createPartitions":
        admin().createPartitions(Map.of(a.path("name").asText(), NewPartitions.increaseTo(a.path("totalCount").asInt())))
            .all().get();
        return JSON.nullNode();
      case "describeConfigs":
        return describeConfigs(a);
      case "alterConfigs":
        return alterConfigs(a);
      case "electLeaders":
        return electLeaders(a);
      case "reassignPartitions":
        return reassignPartitions(a);
      case "listReassignments":
        return listReassignments();
      case "listOffsets":
        return listOffsets(a);
      case "describeProducers":
        return describeProducers(a);
      case "createAcls":
        return createAcls(a);
      case "deleteAcls":
        return deleteAcls(a);
      case "describeAcls":
        return describeAcls(a);
      case "produce":
        return produce(a);
      case "consume":
        return consume(a);
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  private static JsonNode createTopic(JsonNode a) throws Exception {
    String name = a.path("name").asText();
    NewTopic topic;
    if (a.hasNonNull("assignments")) {
      Map<Integer, List<Integer>> assignments = new HashMap<>();
      int p = 0;
      for (JsonNode replicas : a.get("assignments")) assignments.put(p++, intList(replicas));
      topic = new NewTopic(name, assignments);
    } else {
      Optional<Integer> partitions =
          a.hasNonNull("partitions") ? Optional.of(a.get("partitions").asInt()) : Optional.empty();
      Optional<Short> rf = a.hasNonNull("replicationFactor")
          ? Optional.of((short) a.get("replicationFactor").asInt())
          : Optional.empty();
      topic = new NewTopic(name, partitions, rf);
    }
    topic.configs(stringMap(a.get("configs")));
    admin().createTopics(List.of(topic)).all().get();
    boolean leaders = a.path("waitForLeaders").asBoolean(true);
    return topicJson(waitForTopic(name, leaders, a.path("timeoutMs").asLong(30_000)));
  }

  // CreateTopics returns once the controller has the topic; leaders reach every broker's
  // metadata a little later. Tests want a usable topic, so wait until every partition has one.
  // Brokers learn of the topic at slightly different moments, and each describe may ask a
  // different one: the description that showed all leaders is the one returned.
  private static TopicDescription waitForTopic(String name, boolean leaders, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      try {
        TopicDescription d = admin().describeTopics(List.of(name)).allTopicNames().get().get(name);
        boolean all = !leaders || !d.partitions().isEmpty();
        for (TopicPartitionInfo p : d.partitions()) {
          if (leaders && (p.leader() == null || p.leader().isEmpty())) all = false;
        }
        if (all) return d;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) throw e;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new org.apache.kafka.common.errors.TimeoutException("topic " + name + " has partitions without a leader after " + timeoutMs + " ms");
      }
      Thread.sleep(100);
    }
  }

  private static JsonNode describeTopic(String name) throws Exception {
    return topicJson(admin().describeTopics(List.of(name)).allTopicNames().get().get(name));
  }

  private static JsonNode topicJson(TopicDescription d) {
    ObjectNode out = JSON.createObjectNode();
    out.put("name", d.name());
    out.put("topicId", d.topicId().toString());
    out.put("internal", d.isInternal());
    ArrayNode parts = out.putArray("partitions");
    for (TopicPartitionInfo p : d.partitions()) {
      ObjectNode pn = parts.addObject();
      pn.put("partition", p.partition());
      if (p.leader() == null || p.leader().isEmpty()) pn.put("leader", -1);
      else pn.put("leader", p.leader().id());
      ArrayNode replicas = pn.putArray("replicas");
      for (Node n : p.replicas()) replicas.add(n.id());
      ArrayNode isr = pn.putArray("isr");
      for (Node n : p.isr()) isr.add(n.id());
    }
    return out;
  }

  private static JsonNode listTopics(boolean internal) throws Exception {
    ArrayNode out = JSON.createArrayNode();
    List<String> names = new ArrayList<>(admin().listTopics(new ListTopicsOptions().listInternal(internal)).names().get());
    names.sort(null);
    for (String n : names) out.add(n);
    return out;
  }

  private static JsonNode describeCluster(int timeoutMs) throws Exception {
    DescribeClusterOptions options = new DescribeClusterOptions();
    if (timeoutMs > 0) options.timeoutMs(timeoutMs);
    DescribeClusterResult r = admin().describeCluster(options);
    ObjectNode out = JSON.createObjectNode();
    out.put("clusterId", r.clusterId().get());
    Node controller = r.controller().get();
    out.put("controller", controller == null ? -1 : controller.id());
    ArrayNode nodes = out.putArray("nodes");
    List<Node> sorted = new ArrayList<>(r.nodes().get());
    sorted.sort((x, y) -> Integer.compare(x.id(), y.id()));
    for (Node n : sorted) {
      ObjectNode nn = nodes.addObject();
      nn.put("id", n.id());
      nn.put("host", n.host());
      nn.put("port", n.port());
      if (n.rack() != null) nn.put("rack", n.rack());
      else nn.putNull("rack");
    }
    return out;
  }

  private static ConfigResource resource(JsonNode a) {
    String type = a.path("type").asText("topic");
    ConfigResource.Type t = switch (type) {
      case "topic" -> ConfigResource.Type.TOPIC;
      case "broker" -> ConfigResource.Type.BROKER;
      default -> throw new IllegalArgumentException("unknown config resource type " + type);
    };
    return new ConfigResource(t, a.path("name").asText());
  }

  private static JsonNode describeConfigs(JsonNode a) throws Exception {
    ConfigResource res = resource(a);
    Config config = admin().describeConfigs(List.of(res)).all().get().get(res);
    ObjectNode out = JSON.createObjectNode();
    for (ConfigEntry e : config.entries()) {
      if (e.value() == null) out.putNull(e.name());
      else out.put(e.name(), e.value());
    }
    return out;
  }

  private static JsonNode alterConfigs(JsonNode a) throws Exception {
    ConfigResource res = resource(a);
    List<AlterConfigOp> ops = new ArrayList<>();
    for (Map.Entry<String, String> e : stringMap(a.get("set")).entrySet()) {
      ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
    }
    if (a.has("delete")) {
      for (JsonNode n : a.get("delete")) {
        ops.add(new AlterConfigOp(new ConfigEntry(n.asText(), null), AlterConfigOp.OpType.DELETE));
      }
    }
    admin().incrementalAlterConfigs(Map.of(res, ops)).all().get();
    return JSON.nullNode();
  }

  private static Set<TopicPartition> partitions(JsonNode a) throws Exception {
    String topic = a.path("topic").asText();
    Set<TopicPartition> out = new HashSet<>();
    if (a.hasNonNull("partitions")) {
      for (int p : intList(a.get("partitions"))) out.add(new TopicPartition(topic, p));
    } else {
      TopicDescription d = admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      for (TopicPartitionInfo p : d.partitions()) out.add(new TopicPartition(topic, p.partition()));
    }
    return out;
  }

  private static JsonNode electLeaders(JsonNode a) throws Exception {
    ElectionType type = "unclean".equals(a.path("type").asText("preferred")) ? ElectionType.UNCLEAN : ElectionType.PREFERRED;
    Map<TopicPartition, Optional<Throwable>> result = admin().electLeaders(type, partitions(a)).partitions().get();
    ArrayNode out = JSON.createArrayNode();
    for (Map.Entry<TopicPartition, Optional<Throwable>> e : result.entrySet()) {
      ObjectNode n = out.addObject();
      n.put("partition", e.getKey().partition());
      if (e.getValue().isPresent()) n.put("error", e.getValue().get().getClass().getSimpleName() + ": " + e.getValue().get().getMessage());
      else n.putNull("error");
    }
    return out;
  }

  private static JsonNode reassignPartitions(JsonNode a) throws Exception {
    String topic = a.path("topic").asText();
    Map<TopicPartition, Optional<NewPartitionReassignment>> m = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = a.path("assignments").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      m.put(new TopicPartition(topic, Integer.parseInt(e.getKey())), Optional.of(new NewPartitionReassignment(intList(e.getValue()))));
    }
    admin().alterPartitionReassignments(m).all().get();
    return JSON.nullNode();
  }

  private static JsonNode listReassignments() throws Exception {
    Map<TopicPartition, PartitionReassignment> r = admin().listPartitionReassignments().reassignments().get();
    ArrayNode out = JSON.createArrayNode();
    for (Map.Entry<TopicPartition, PartitionReassignment> e : r.entrySet()) {
      ObjectNode n = out.addObject();
      n.put("topic", e.getKey().topic());
      n.put("partition", e.getKey().partition());
      ArrayNode replicas = n.putArray("replicas");
      for (int id : e.getValue().replicas()) replicas.add(id);
    }
    return out;
  }

  private static JsonNode listOffsets(JsonNode a) throws Exception {
    String spec = a.path("spec").asText("latest");
    OffsetSpec offsetSpec = switch (spec) {
      case "earliest" -> OffsetSpec.earliest();
      case "latest" -> OffsetSpec.latest();
      case "maxTimestamp" -> OffsetSpec.maxTimestamp();
      default -> OffsetSpec.forTimestamp(Long.parseLong(spec));
    };
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (TopicPartition tp : partitions(a)) request.put(tp, offsetSpec);
    var result = admin().listOffsets(request).all().get();
    List<TopicPartition> keys = new ArrayList<>(result.keySet());
    keys.sort((x, y) -> Integer.compare(x.partition(), y.partition()));
    ArrayNode out = JSON.createArrayNode();
    for (TopicPartition tp : keys) {
      var info = result.get(tp);
      ObjectNode n = out.addObject();
      n.put("partition", tp.partition());
      n.put("offset", Long.toString(info.offset()));
      n.put("timestamp", Long.toString(info.timestamp()));
    }
    return out;
  }

  private static JsonNode describeProducers(JsonNode a) throws Exception {
    var result = admin().describeProducers(partitions(a)).all().get();
    List<TopicPartition> keys = new ArrayList<>(result.keySet());
    keys.sort((x, y) -> Integer.compare(x.partition(), y.partition()));
    ArrayNode out = JSON.createArrayNode();
    for (TopicPartition tp : keys) {
      ObjectNode n = out.addObject();
      n.put("partition", tp.partition());
      ArrayNode producers = n.putArray("producers");
      for (var state : result.get(tp).activeProducers()) {
        ObjectNode ps = producers.addObject();
        ps.put("producerId", Long.toString(state.producerId()));
        ps.put("producerEpoch", state.producerEpoch());
        ps.put("lastSequence", state.lastSequence());
        ps.put("lastTimestamp", Long.toString(state.lastTimestamp()));
        if (state.coordinatorEpoch().isPresent()) ps.put("coordinatorEpoch", state.coordinatorEpoch().getAsInt());
        else ps.putNull("coordinatorEpoch");
        if (state.currentTransactionStartOffset().isPresent()) {
          ps.put("currentTransactionStartOffset", Long.toString(state.currentTransactionStartOffset().getAsLong()));
        } else {
          ps.putNull("currentTransactionStartOffset");
        }
      }
    }
    return out;
  }

  private static AclBinding aclBinding(JsonNode n) {
    return new AclBinding(
        new ResourcePattern(
            ResourceType.fromString(n.path("resourceType").asText("TOPIC")),
            n.path("name").asText(),
            PatternType.fromString(n.path("patternType").asText("LITERAL"))),
        new AccessControlEntry(
            n.path("principal").asText(),
            n.path("host").asText("*"),
            AclOperation.fromString(n.path("operation").asText()),
            AclPermissionType.fromString(n.path("permission").asText("ALLOW"))));
  }

  private static AclBindingFilter aclFilter(JsonNode n) {
    return new AclBindingFilter(
        new ResourcePatternFilter(
            ResourceType.fromString(n.path("resourceType").asText("ANY")),
            n.hasNonNull("name") ? n.get("name").asText() : null,
            PatternType.fromString(n.path("patternType").asText("ANY"))),
        new AccessControlEntryFilter(
            n.hasNonNull("principal") ? n.get("principal").asText() : null,
            n.hasNonNull("host") ? n.get("host").asText() : null,
            AclOperation.fromString(n.path("operation").asText("ANY")),
            AclPermissionType.fromString(n.path("permission").asText("ANY"))));
  }

  private static JsonNode aclJson(AclBinding b) {
    ObjectNode n = JSON.createObjectNode();
    n.put("resourceType", b.pattern().resourceType().name());
    n.put("name", b.pattern().name());
    n.put("patternType", b.pattern().patternType().name());
    n.put("principal", b.entry().principal());
    n.put("host", b.entry().host());
    n.put("operation", b.entry().operation().name());
    n.put("permission", b.entry().permissionType().name());
    return n;
  }

  private static JsonNode createAcls(JsonNode a) throws Exception {
    List<AclBinding> bindings = new ArrayList<>();
    for (JsonNode n : a.path("acls")) bindings.add(aclBinding(n));
    admin().createAcls(bindings).all().get();
    return JSON.nullNode();
  }

  private static JsonNode deleteAcls(JsonNode a) throws Exception {
    Collection<AclBinding> deleted = admin().deleteAcls(List.of(aclFilter(a.path("filter")))).all().get();
    ArrayNode out = JSON.createArrayNode();
    for (AclBinding b : deleted) out.add(aclJson(b));
    return out;
  }

  private static JsonNode describeAcls(JsonNode a) throws Exception {
    Collection<AclBinding> found = admin().describeAcls(aclFilter(a.path("filter"))).values().get();
    ArrayNode out = JSON.createArrayNode();
    for (AclBinding b : found) out.add(aclJson(b));
    return out;
  }

  private static JsonNode produce(JsonNode a) throws Exception {
    String topic = a.path("topic").asText();
    Map<String, String> extra = new HashMap<>();
    extra.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, a.path("compression").asText("none"));
    extra.put(ProducerConfig.ACKS_CONFIG, a.path("acks").asText("all"));
    extra.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(a.path("idempotent").asBoolean(true)));
    extra.put(ProducerConfig.LINGER_MS_CONFIG, a.path("lingerMs").asText("0"));
    extra.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, a.path("timeoutMs").asText("30000"));
    extra.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, a.path("timeoutMs").asText("30000"));
    // delivery.timeout.ms must cover linger.ms + request.timeout.ms or the producer refuses to start.
    long timeoutMs = a.path("timeoutMs").asLong(30_000);
    extra.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(500, Math.min(15_000, timeoutMs / 2))));
    extra.putAll(stringMap(a.get("configs")));
    // One transaction around the whole call when a transactional id is given: committed, or
    // aborted on request (so tests can see aborted data and the control batches that mark it).
    String transactionalId = a.hasNonNull("transactionalId") ? a.get("transactionalId").asText() : null;
    if (transactionalId != null) extra.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    else if (extra.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
      throw new IllegalArgumentException("pass transactionalId, not a transactional.id config");
    }
    boolean abort = a.path("abort").asBoolean(false);
    Properties p = props(extra);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      if (transactionalId != null) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      for (JsonNode r : a.path("records")) {
        List<Header> headers = new ArrayList<>();
        for (JsonNode h : r.path("headers")) headers.add(new RecordHeader(h.path("key").asText(), bytes(h.get("value"))));
        Integer partition = r.hasNonNull("partition") ? r.get("partition").asInt() : null;
        Long timestamp = r.hasNonNull("timestamp") ? Long.parseLong(r.get("timestamp").asText()) : null;
        futures.add(producer.send(new ProducerRecord<>(topic, partition, timestamp, bytes(r.get("key")), bytes(r.get("value")), headers)));
      }
      producer.flush();
      if (transactionalId != null) {
        if (abort) producer.abortTransaction();
        else producer.commitTransaction();
      }
      ArrayNode out = JSON.createArrayNode();
      for (Future<RecordMetadata> f : futures) {
        RecordMetadata m = f.get();
        ObjectNode n = out.addObject();
        n.put("partition", m.partition());
        n.put("offset", Long.toString(m.offset()));
        n.put("timestamp", Long.toString(m.timestamp()));
      }
      return out;
    }
  }

  private static JsonNode consume(JsonNode a) throws Exception {
    String topic = a.path("topic").asText();
    int maxRecords = a.path("maxRecords").asInt(Integer.MAX_VALUE);
    long timeoutMs = a.path("timeoutMs").asLong(10_000);
    long fromOffset = Long.parseLong(a.path("fromOffset").asText("0"));
    Map<String, String> extra = new HashMap<>();
    extra.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    extra.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    extra.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, a.path("isolationLevel").asText("read_uncommitted"));
    extra.putAll(stringMap(a.get("configs")));
    Properties p = props(extra);
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    ArrayNode records = JSON.createArrayNode();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> assigned = new ArrayList<>();
      if (a.hasNonNull("partition")) {
        assigned.add(new TopicPartition(topic, a.get("partition").asInt()));
      } else {
        for (var info : consumer.partitionsFor(topic, Duration.ofMillis(timeoutMs))) {
          assigned.add(new TopicPartition(topic, info.partition()));
        }
        assigned.sort((x, y) -> Integer.compare(x.partition(), y.partition()));
      }
      consumer.assign(assigned);
      for (TopicPartition tp : assigned) consumer.seek(tp, fromOffset);
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (records.size() < maxRecords) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) break;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(Math.min(left, 200)))) {
          if (records.size() >= maxRecords) break;
          ObjectNode n = records.addObject();
          n.put("partition", r.partition());
          n.put("offset", Long.toString(r.offset()));
          n.put("timestamp", Long.toString(r.timestamp()));
          n.put("timestampType", r.timestampType().name);
          n.put("key", b64(r.key()));
          n.put("value", b64(r.value()));
          ArrayNode hs = n.putArray("headers");
          for (Header h : r.headers()) {
            ObjectNode hn = hs.addObject();
            hn.put("key", h.key());
            hn.put("value", b64(h.value()));
          }
          r.leaderEpoch().ifPresent(e -> n.put("leaderEpoch", e));
        }
      }
    }
    return records;
  }
}
