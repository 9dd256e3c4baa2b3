// Kafka's own tiered-storage metadata code as an oracle for @kafkats/remote-log-metadata:
// RemoteLogMetadataSerde (serialise / deserialise the values of __remote_log_metadata),
// RemoteLogMetadataTopicPartitioner, and RemotePartitionMetadataStore (the state a broker's
// topic-based RLMM builds from those events), all from the pinned kafka-storage jar.
//
// Run: java -cp '<classes>:<libDir>/*' RlmmOracle < requests.json
// Input: one JSON array of requests. Output: one JSON array, one result per request, in order;
// a request Kafka refuses answers {"error": {"class", "message"}}.
//
// Events travel as JSON objects (int64 as decimal strings, bytes as base64, uuids as Kafka's
// base64url text, states as Kafka's enum names):
//   {"kind":"segment", topicId, topic, partition, segmentId, startOffset, endOffset, brokerId,
//    maxTimestampMs, eventTimestampMs, segmentLeaderEpochs:[[epoch,"offset"]...],
//    segmentSizeInBytes, customMetadata (base64|null), state, txnIndexEmpty}
//   {"kind":"segment-update", topicId, topic, partition, segmentId, eventTimestampMs,
//    customMetadata, state, brokerId}
//   {"kind":"partition-delete", topicId, topic, partition, state, eventTimestampMs, brokerId}
// Ops:
//   {"op":"serialize", "event":{...}}             -> {"hex"}
//   {"op":"deserialize", "hex"}                   -> {"event":{...}, "text": toString()}
//   {"op":"partition", topicId, topic, partition, "partitions": n} -> {"partition"}
//   {"op":"defaults"} -> Kafka's metadata topic and client defaults: {topic, numPartitions,
//       replicationFactor, minIsr, retentionMs, consumeWaitMs, fetchMaxWaitMs,
//       maxPartitionFetchBytes, retryBackoffMs}
//   {"op":"store", "register":[{topicId,topic,partition}], "events":[...], "queries":[...]}
//       applies the events in order to a RemotePartitionMetadataStore in which the registered
//       partitions are loaded and marked initialized, then answers each query:
//       {"q":"lookup", topicId, topic, partition, epoch, offset} -> {"segment": event|null}
//       {"q":"highest", ..., epoch}                          -> {"offset": "n"|null}
//       {"q":"list", ...}  / {"q":"list", ..., epoch}        -> {"segments": [event...]}
//       {"q":"nextTxn", ..., epoch, offset}                  -> {"segment": event|null}
//       each answer may be {"error":{...}} instead; an event Kafka's store throws on answers in
//       "eventErrors" [{index, class, message}] (the store goes on, as a test of its own state).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogSegmentMetadataSnapshot;
import org.apache.kafka.server.log.remote.metadata.storage.RemotePartitionMetadataStore;
import org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManagerConfig;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;

public class RlmmOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();
    private static final RemoteLogMetadataSerde SERDE = new RemoteLogMetadataSerde();

    public static void main(String[] args) throws Exception {
        InputStream in = System.in;
        JsonNode requests = MAPPER.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        ArrayNode results = NODES.arrayNode();
        for (JsonNode request : requests) results.add(handle(request));
        System.out.write(MAPPER.writeValueAsBytes(results));
        System.out.flush();
    }

    /**
     * Kafka's own defaults for the metadata topic and its clients: the topic-based RLMM's config
     * and the consumer settings its reads use (int64 as decimal strings).
     */
    private static ObjectNode defaults() {
        ObjectNode o = NODES.objectNode();
        o.put("topic", TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME);
        o.put("numPartitions", TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_PARTITIONS);
        o.put("replicationFactor", TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_REPLICATION_FACTOR);
        o.put("minIsr", TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_MIN_ISR);
        o.put("retentionMs", Long.toString(TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_RETENTION_MS));
        o.put("consumeWaitMs", Long.toString(TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_CONSUME_WAIT_MS));
        o.put("fetchMaxWaitMs", ConsumerConfig.DEFAULT_FETCH_MAX_WAIT_MS);
        o.put("maxPartitionFetchBytes", ConsumerConfig.DEFAULT_MAX_PARTITION_FETCH_BYTES);
        o.put("retryBackoffMs", Long.toString(CommonClientConfigs.DEFAULT_RETRY_BACKOFF_MS));
        return o;
    }

    private static ObjectNode handle(JsonNode r) {
        try {
            return switch (r.path("op").asText()) {
                case "serialize" -> {
                    ObjectNode o = NODES.objectNode();
                    o.put("hex", HEX.formatHex(SERDE.serialize(toEvent(r.get("event")))));
                    yield o;
                }
                case "deserialize" -> {
                    RemoteLogMetadata m = SERDE.deserialize(HEX.parseHex(r.path("hex").asText()));
                    ObjectNode o = NODES.objectNode();
                    o.set("event", fromEvent(m));
                    o.put("text", m.toString());
                    yield o;
                }
                case "partition" -> {
                    ObjectNode o = NODES.objectNode();
                    o.put("partition", new RemoteLogMetadataTopicPartitioner(r.path("partitions").asInt())
                        .metadataPartition(tip(r)));
                    yield o;
                }
                case "store" -> store(r);
                case "defaults" -> defaults();
                default -> throw new IllegalArgumentException("unknown op " + r.path("op").asText());
            };
        } catch (Throwable t) {
            ObjectNode o = NODES.objectNode();
            o.set("error", error(t));
            return o;
        }
    }

    private static ObjectNode error(Throwable t) {
        while (t instanceof InvocationTargetException && t.getCause() != null) t = t.getCause();
        ObjectNode e = NODES.objectNode();
        e.put("class", t.getClass().getName());
        e.put("message", String.valueOf(t.getMessage()));
        return e;
    }

    private static TopicIdPartition tip(JsonNode n) {
        return new TopicIdPartition(Uuid.fromString(n.path("topicId").asText()), n.path("partition").asInt(),
            n.path("topic").asText());
    }

    private static Optional<RemoteLogSegmentMetadata.CustomMetadata> custom(JsonNode n) {
        JsonNode c = n.get("customMetadata");
        if (c == null || c.isNull()) return Optional.empty();
        return Optional.of(new RemoteLogSegmentMetadata.CustomMetadata(Base64.getDecoder().decode(c.asText())));
    }

    private static RemoteLogMetadata toEvent(JsonNode n) {
        String kind = n.path("kind").asText();
        switch (kind) {
            case "segment": {
                Map<Integer, Long> epochs = new TreeMap<>();
                for (JsonNode e : n.path("segmentLeaderEpochs")) epochs.put(e.get(0).asInt(), Long.parseLong(e.get(1).asText()));
                return new RemoteLogSegmentMetadata(
                    new RemoteLogSegmentId(tip(n), Uuid.fromString(n.path("segmentId").asText())),
                    Long.parseLong(n.path("startOffset").asText()), Long.parseLong(n.path("endOffset").asText()),
                    Long.parseLong(n.path("maxTimestampMs").asText()), n.path("brokerId").asInt(),
                    Long.parseLong(n.path("eventTimestampMs").asText()), n.path("segmentSizeInBytes").asInt(),
                    custom(n), RemoteLogSegmentState.valueOf(n.path("state").asText()), epochs,
                    n.path("txnIndexEmpty").asBoolean());
            }
            case "segment-update":
                return new RemoteLogSegmentMetadataUpdate(
                    new RemoteLogSegmentId(tip(n), Uuid.fromString(n.path("segmentId").asText())),
                    Long.parseLong(n.path("eventTimestampMs").asText()), custom(n),
                    RemoteLogSegmentState.valueOf(n.path("state").asText()), n.path("brokerId").asInt());
            case "partition-delete":
                return new RemotePartitionDeleteMetadata(tip(n), RemotePartitionDeleteState.valueOf(n.path("state").asText()),
                    Long.parseLong(n.path("eventTimestampMs").asText()), n.path("brokerId").asInt());
            default:
                throw new IllegalArgumentException("unknown event kind " + kind);
        }
    }

    private static void putTip(ObjectNode o, TopicIdPartition t) {
        o.put("topicId", t.topicId().toString());
        o.put("topic", t.topic());
        o.put("partition", t.partition());
    }

    private static void putCustom(ObjectNode o, Optional<RemoteLogSegmentMetadata.CustomMetadata> c) {
        if (c.isPresent()) o.put("customMetadata", Base64.getEncoder().encodeToString(c.get().value()));
        else o.putNull("customMetadata");
    }

    private static ObjectNode fromEvent(RemoteLogMetadata m) {
        ObjectNode o = NODES.objectNode();
        if (m instanceof RemoteLogSegmentMetadata s) {
            o.put("kind", "segment");
            putTip(o, s.remoteLogSegmentId().topicIdPartition());
            o.put("segmentId", s.remoteLogSegmentId().id().toString());
            o.put("startOffset", Long.toString(s.startOffset()));
            o.put("endOffset", Long.toString(s.endOffset()));
            o.put("brokerId", s.brokerId());
            o.put("maxTimestampMs", Long.toString(s.maxTimestampMs()));
            o.put("eventTimestampMs", Long.toString(s.eventTimestampMs()));
            ArrayNode epochs = o.putArray("segmentLeaderEpochs");
            for (Map.Entry<Integer, Long> e : s.segmentLeaderEpochs().entrySet()) {
                ArrayNode pair = epochs.addArray();
                pair.add(e.getKey());
                pair.add(Long.toString(e.getValue()));
            }
            o.put("segmentSizeInBytes", s.segmentSizeInBytes());
            putCustom(o, s.customMetadata());
            o.put("state", s.state().name());
            o.put("txnIndexEmpty", s.isTxnIdxEmpty());
        } else if (m instanceof RemoteLogSegmentMetadataUpdate u) {
            o.put("kind", "segment-update");
            putTip(o, u.remoteLogSegmentId().topicIdPartition());
            o.put("segmentId", u.remoteLogSegmentId().id().toString());
            o.put("eventTimestampMs", Long.toString(u.eventTimestampMs()));
            putCustom(o, u.customMetadata());
            o.put("state", u.state().name());
            o.put("brokerId", u.brokerId());
        } else if (m instanceof RemotePartitionDeleteMetadata d) {
            o.put("kind", "partition-delete");
            putTip(o, d.topicIdPartition());
            o.put("state", d.state().name());
            o.put("eventTimestampMs", Long.toString(d.eventTimestampMs()));
            o.put("brokerId", d.brokerId());
        } else if (m instanceof RemoteLogSegmentMetadataSnapshot s) {
            o.put("kind", "segment-snapshot");
            o.put("segmentId", s.segmentId().toString());
        } else {
            throw new IllegalArgumentException("unexpected metadata class " + m.getClass().getName());
        }
        return o;
    }

    // The store's read methods are package-private; the oracle reaches them by reflection.
    private static Method method(String name, Class<?>... types) throws Exception {
        Method m = RemotePartitionMetadataStore.class.getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m;
    }

    private static ObjectNode store(JsonNode r) throws Exception {
        RemotePartitionMetadataStore store = new RemotePartitionMetadataStore();
        for (JsonNode p : r.path("register")) {
            store.maybeLoadPartition(tip(p));
            store.markInitialized(tip(p));
        }
        ObjectNode out = NODES.objectNode();
        ArrayNode eventErrors = out.putArray("eventErrors");
        int index = 0;
        for (JsonNode e : r.path("events")) {
            try {
                RemoteLogMetadata m = toEvent(e);
                if (m instanceof RemoteLogSegmentMetadata s) store.handleRemoteLogSegmentMetadata(s);
                else if (m instanceof RemoteLogSegmentMetadataUpdate u) store.handleRemoteLogSegmentMetadataUpdate(u);
                else store.handleRemotePartitionDeleteMetadata((RemotePartitionDeleteMetadata) m);
            } catch (Throwable t) {
                ObjectNode err = error(t);
                err.put("index", index);
                eventErrors.add(err);
            }
            index++;
        }
        Method lookup = method("remoteLogSegmentMetadata", TopicIdPartition.class, long.class, int.class);
        Method highest = method("highestLogOffset", TopicIdPartition.class, int.class);
        Method listAll = method("listRemoteLogSegments", TopicIdPartition.class);
        Method listEpoch = method("listRemoteLogSegments", TopicIdPartition.class, int.class);
        Method nextTxn = method("nextSegmentWithTxnIndex", TopicIdPartition.class, int.class, long.class);
        ArrayNode answers = out.putArray("answers");
        for (JsonNode q : r.path("queries")) {
            ObjectNode a = NODES.objectNode();
            try {
                TopicIdPartition t = tip(q);
                switch (q.path("q").asText()) {
                    case "lookup" -> putSegment(a, (Optional<?>) lookup.invoke(store, t, Long.parseLong(q.path("offset").asText()), q.path("epoch").asInt()));
                    case "nextTxn" -> putSegment(a, (Optional<?>) nextTxn.invoke(store, t, q.path("epoch").asInt(), Long.parseLong(q.path("offset").asText())));
                    case "highest" -> {
                        Optional<?> v = (Optional<?>) highest.invoke(store, t, q.path("epoch").asInt());
                        if (v.isPresent()) a.put("offset", v.get().toString());
                        else a.putNull("offset");
                    }
                    case "list" -> {
                        Iterator<?> it = q.has("epoch")
                            ? (Iterator<?>) listEpoch.invoke(store, t, q.path("epoch").asInt())
                            : (Iterator<?>) listAll.invoke(store, t);
                        ArrayNode segments = a.putArray("segments");
                        while (it.hasNext()) segments.add(fromEvent((RemoteLogMetadata) it.next()));
                    }
                    default -> throw new IllegalArgumentException("unknown query " + q.path("q").asText());
                }
            } catch (Throwable t) {
                a.set("error", error(t));
            }
            answers.add(a);
        }
        return out;
    }

    private static void putSegment(ObjectNode a, Optional<?> v) {
        if (v.isPresent()) a.set("segment", fromEvent((RemoteLogMetadata) v.get()));
        else a.putNull("segment");
    }
}
