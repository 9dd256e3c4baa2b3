// The conformance oracle: Apache Kafka's own generated message classes and record-batch builder,
// driven over stdin/stdout with one JSON document per line, so the TypeScript codec can be
// compared byte for byte with the pinned kafka-clients/kafka-storage jars.
//
// Run: java -cp '<libDir>/*' packages/testkit/java/Oracle.java  (libDir from kafka-dist.mjs)
//
// Request line:  {"id": n, "op": "...", "items": [...]}
// Response line: {"id": n, "results": [...]}  (one result per item, same order), or
//                {"id": n, "error": {"class": ..., "message": ...}} when the line itself is bad.
// Ops:
//   encode        item {name, version, json}  -> {hex} | {error}
//   decode        item {name, version, hex}   -> {json, trailing} | {error}
//   batch-build   item: a batch description   -> {hex} | {error}  ("magic" 0 or 1: legacy)
//   batch-decode  item {hex}                  -> {batches: [description...]} | {error}
//   batch-marker  item {type: COMMIT|ABORT, baseOffset, timestamp, partitionLeaderEpoch,
//                 producerId, producerEpoch, coordinatorEpoch} -> {hex} | {error}: the control
//                 batch MemoryRecords.withEndTransactionMarker writes
//   schemas       item {jar, prefix}          -> {files: [{path, text}]}: the message schemas
//                 shipped in the named jar (e.g. "kafka-clients", "common/message/"), so the
//                 suite reads the very schemas the oracle's classes were generated from
//   frame         item {name, apiKey, version, correlationId, clientId, json, response?: bool}
//                 -> {hex}: header + body as Kafka's RequestUtils.serialize writes them (no size
//                 prefix), with the header version Kafka's ApiKeys picks for that API version
//   api-keys      item {}                     -> {apis: [{apiKey, name, oldest, latest,
//                 latestVersionUnstable, listeners, headers: [{version, request, response}]}]}
//                 from Kafka's ApiMessageType (the facts behind its ApiKeys)
//   ping                                      -> {"id": n, "pong": true}
//
// JSON conventions on this pipe (both directions), layered over Kafka's JsonConverter format:
//   - int64/uint32 leave as JSON strings (JavaScript numbers lose precision); JSON numbers and
//     digit strings are both accepted on input.
//   - bytes and records travel as {"$bytes": "<base64>"} on input (Kafka's converter only takes
//     Jackson binary nodes) and as plain base64 strings on output.
//   - float64 travels as {"$f64": "<Java double literal>"} both ways, so NaN, infinities and -0.0
//     survive.
//   - unknown tagged fields ride in a struct's "_unknownTaggedFields": [{"tag", "data"(base64)}],
//     attached to and read from the Java objects' unknownTaggedFields() by reflection.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

public class Oracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();
    private static final String UNKNOWN = "_unknownTaggedFields";

    /** The generated data class and its JsonConverter for one message name. */
    private record Kind(Class<?> data, Method read, Method write) {}

    private static final Map<String, Kind> KINDS = new HashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            ObjectNode response = NODES.objectNode();
            try {
                JsonNode request = MAPPER.readTree(line);
                response.set("id", request.get("id"));
                String op = request.path("op").asText();
                if (op.equals("ping")) {
                    response.put("pong", true);
                } else {
                    ArrayNode results = response.putArray("results");
                    for (JsonNode item : request.path("items")) results.add(handle(op, item));
                }
            } catch (Throwable t) {
                response.set("error", error(t));
            }
            out.println(MAPPER.writeValueAsString(response));
            out.flush();
        }
    }

    private static ObjectNode handle(String op, JsonNode item) {
        try {
            return switch (op) {
                case "encode" -> encode(item);
                case "decode" -> decode(item);
                case "batch-build" -> buildBatch(item);
                case "batch-decode" -> decodeBatches(item);
                case "batch-marker" -> buildMarker(item);
                case "schemas" -> schemas(item);
                case "api-keys" -> apiKeys();
                case "frame" -> frame(item);
                default -> throw new IllegalArgumentException("unknown op " + op);
            };
        } catch (Throwable t) {
            ObjectNode result = NODES.objectNode();
            result.set("error", error(t));
            return result;
        }
    }

    private static ObjectNode error(Throwable t) {
        // Reflection wraps what the generated code threw; report Kafka's own exception.
        while (t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null) t = t.getCause();
        ObjectNode e = NODES.objectNode();
        e.put("class", t.getClass().getName());
        e.put("message", String.valueOf(t.getMessage()));
        return e;
    }

    private static Kind kind(String name) throws Exception {
        Kind k = KINDS.get(name);
        if (k != null) return k;
        // Requests, responses and headers are <Name>Data; "data" schemas (ConsumerProtocolAssignment,
        // LeaderChangeMessage...) keep their bare name; kafka-storage's records live elsewhere.
        String[] candidates = {
            "org.apache.kafka.common.message." + name + "Data",
            "org.apache.kafka.common.message." + name,
            "org.apache.kafka.server.log.remote.metadata.storage.generated." + name,
        };
        Class<?> data = null;
        Class<?> converter = null;
        for (String candidate : candidates) {
            try {
                data = Class.forName(candidate);
                converter = Class.forName(candidate + "JsonConverter");
                break;
            } catch (ClassNotFoundException notHere) {
                data = null;
            }
        }
        if (data == null) throw new ClassNotFoundException("no generated message class for " + name);
        k = new Kind(data, converter.getMethod("read", JsonNode.class, short.class),
            converter.getMethod("write", data, short.class));
        KINDS.put(name, k);
        return k;
    }

    private static ObjectNode encode(JsonNode item) throws Throwable {
        Kind k = kind(item.path("name").asText());
        short version = (short) item.path("version").asInt();
        JsonNode json = toKafkaJson(item.get("json"));
        Message message = (Message) invoke(k.read, null, json, version);
        attachUnknownTaggedFields(message, json);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        if (buffer.position() != size)
            throw new IllegalStateException("wrote " + buffer.position() + " bytes, size() said " + size);
        ObjectNode result = NODES.objectNode();
        result.put("hex", HEX.formatHex(buffer.array()));
        return result;
    }

    private static ObjectNode decode(JsonNode item) throws Throwable {
        Kind k = kind(item.path("name").asText());
        short version = (short) item.path("version").asInt();
        ByteBuffer buffer = ByteBuffer.wrap(HEX.parseHex(item.path("hex").asText()));
        Message message = (Message) invoke(k.data.getConstructor(Readable.class, short.class), new ByteBufferAccessor(buffer), version);
        JsonNode json = (JsonNode) invoke(k.write, null, message, version);
        readUnknownTaggedFields(message, json);
        ObjectNode result = NODES.objectNode();
        result.set("json", fromKafkaJson(json));
        result.put("trailing", buffer.remaining());
        return result;
    }

    private static Object invoke(Method m, Object target, Object... args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Object invoke(java.lang.reflect.Constructor<?> c, Object... args) throws Throwable {
        try {
            return c.newInstance(args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Our pipe markers to the node types Kafka's JsonConverter expects. */
    private static JsonNode toKafkaJson(JsonNode node) {
        if (node == null) return null;
        if (node.isObject()) {
            if (node.size() == 1 && node.has("$bytes")) return new BinaryNode(Base64.getDecoder().decode(node.get("$bytes").asText()));
            if (node.size() == 1 && node.has("$f64")) return new DoubleNode(Double.parseDouble(node.get("$f64").asText()));
            ObjectNode copy = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                copy.set(e.getKey(), e.getKey().equals(UNKNOWN) ? e.getValue() : toKafkaJson(e.getValue()));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            for (JsonNode child : node) copy.add(toKafkaJson(child));
            return copy;
        }
        return node;
    }

    /** Kafka's JsonConverter output to our pipe conventions (lossless for JavaScript). */
    private static JsonNode fromKafkaJson(JsonNode node) {
        if (node == null) return null;
        if (node.isObject()) {
            ObjectNode copy = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                copy.set(e.getKey(), e.getKey().equals(UNKNOWN) ? e.getValue() : fromKafkaJson(e.getValue()));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            for (JsonNode child : node) copy.add(fromKafkaJson(child));
            return copy;
        }
        if (node.isFloatingPointNumber()) {
            ObjectNode f = NODES.objectNode();
            f.put("$f64", Double.toString(node.asDouble()));
            return f;
        }
        if (node.isIntegralNumber()) return new TextNode(node.asText());
        if (node.isBinary()) return new TextNode(Base64.getEncoder().encodeToString(binary(node)));
        return node;
    }

    private static byte[] binary(JsonNode node) {
        try {
            return node.binaryValue();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Walks the JSON we sent beside the Java objects built from it, adding raw tagged fields. */
    private static void attachUnknownTaggedFields(Object target, JsonNode json) throws Exception {
        if (!(target instanceof Message message) || json == null || !json.isObject()) return;
        JsonNode unknown = json.get(UNKNOWN);
        if (unknown != null && unknown.isArray()) {
            for (JsonNode field : unknown)
                message.unknownTaggedFields().add(new RawTaggedField(field.path("tag").asInt(),
                    Base64.getDecoder().decode(field.path("data").asText())));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals(UNKNOWN)) continue;
            JsonNode value = e.getValue();
            if (!value.isObject() && !value.isArray()) continue;
            Object child = accessor(target, e.getKey());
            if (child == null) continue;
            if (value.isObject()) {
                attachUnknownTaggedFields(child, value);
            } else if (child instanceof Collection<?> list) {
                Iterator<?> objects = list.iterator();
                for (JsonNode element : value) {
                    if (!objects.hasNext()) break;
                    attachUnknownTaggedFields(objects.next(), element);
                }
            }
        }
    }

    /** The reverse walk: copies each decoded struct's raw tagged fields into its JSON. */
    private static void readUnknownTaggedFields(Object source, JsonNode json) throws Exception {
        if (!(source instanceof Message message) || json == null || !json.isObject()) return;
        List<RawTaggedField> raw = message.unknownTaggedFields();
        if (raw != null && !raw.isEmpty()) {
            ArrayNode fields = ((ObjectNode) json).putArray(UNKNOWN);
            for (RawTaggedField field : raw) {
                ObjectNode f = fields.addObject();
                f.put("tag", field.tag());
                f.put("data", Base64.getEncoder().encodeToString(field.data()));
            }
        }
        List<String> keys = new ArrayList<>();
        json.fieldNames().forEachRemaining(keys::add);
        for (String key : keys) {
            if (key.equals(UNKNOWN)) continue;
            JsonNode value = json.get(key);
            if (!value.isObject() && !value.isArray()) continue;
            Object child = accessor(source, key);
            if (child == null) continue;
            if (value.isObject()) {
                readUnknownTaggedFields(child, value);
            } else if (child instanceof Collection<?> list) {
                Iterator<?> objects = list.iterator();
                for (JsonNode element : value) {
                    if (!objects.hasNext()) break;
                    readUnknownTaggedFields(objects.next(), element);
                }
            }
        }
    }

    private static Object accessor(Object target, String name) {
        try {
            return target.getClass().getMethod(name).invoke(target);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    private static ObjectNode schemas(JsonNode item) throws Exception {
        String jar = item.path("jar").asText();
        String prefix = item.path("prefix").asText();
        ObjectNode result = NODES.objectNode();
        ArrayNode files = result.putArray("files");
        java.util.Enumeration<java.net.URL> urls = Oracle.class.getClassLoader().getResources(prefix);
        while (urls.hasMoreElements()) {
            java.net.URL url = urls.nextElement();
            if (!url.getProtocol().equals("jar") || !url.getPath().contains("/" + jar + "-")) continue;
            java.net.JarURLConnection connection = (java.net.JarURLConnection) url.openConnection();
            connection.setUseCaches(false); // closing a cached JarFile would close it for everyone
            try (java.util.jar.JarFile file = connection.getJarFile()) {
                for (java.util.jar.JarEntry entry : java.util.Collections.list(file.entries())) {
                    String name = entry.getName();
                    if (!name.startsWith(prefix) || !name.endsWith(".json") || name.indexOf('/', prefix.length()) >= 0) continue;
                    ObjectNode f = files.addObject();
                    f.put("path", name);
                    f.put("text", new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        return result;
    }

    private static ObjectNode frame(JsonNode item) throws Throwable {
        Kind k = kind(item.path("name").asText());
        short version = (short) item.path("version").asInt();
        org.apache.kafka.common.protocol.ApiKeys api = org.apache.kafka.common.protocol.ApiKeys.forId(item.path("apiKey").asInt());
        JsonNode json = toKafkaJson(item.get("json"));
        Message body = (Message) invoke(k.read, null, json, version);
        attachUnknownTaggedFields(body, json);
        Message header;
        short headerVersion;
        if (item.path("response").asBoolean(false)) {
            header = new org.apache.kafka.common.message.ResponseHeaderData()
                .setCorrelationId(item.path("correlationId").asInt());
            headerVersion = api.responseHeaderVersion(version);
        } else {
            JsonNode clientId = item.get("clientId");
            header = new org.apache.kafka.common.message.RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(item.path("correlationId").asInt())
                .setClientId(clientId == null || clientId.isNull() ? null : clientId.asText());
            headerVersion = api.requestHeaderVersion(version);
        }
        ByteBuffer buffer = org.apache.kafka.common.requests.RequestUtils.serialize(header, headerVersion, body, version);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        ObjectNode result = NODES.objectNode();
        result.put("hex", HEX.formatHex(bytes));
        return result;
    }

    private static ObjectNode apiKeys() {
        ObjectNode result = NODES.objectNode();
        ArrayNode apis = result.putArray("apis");
        for (org.apache.kafka.common.message.ApiMessageType type : org.apache.kafka.common.message.ApiMessageType.values()) {
            ObjectNode api = apis.addObject();
            api.put("apiKey", type.apiKey());
            api.put("name", type.name);
            short oldest = type.lowestSupportedVersion();
            short latest = type.highestSupportedVersion(true);
            api.put("oldest", oldest);
            api.put("latest", latest);
            api.put("latestVersionUnstable", type.latestVersionUnstable());
            ArrayNode listeners = api.putArray("listeners");
            for (Object listener : type.listeners()) listeners.add(listener.toString());
            ArrayNode headers = api.putArray("headers");
            for (short v = oldest; v >= 0 && v <= latest; v++) {
                ObjectNode h = headers.addObject();
                h.put("version", v);
                h.put("request", type.requestHeaderVersion(v));
                h.put("response", type.responseHeaderVersion(v));
            }
        }
        return result;
    }

    // ---- record batches ---------------------------------------------------------------------

    private static ObjectNode buildBatch(JsonNode d) {
        CompressionType type = CompressionType.forName(d.path("compression").asText("none"));
        Compression compression = Compression.of(type).build();
        TimestampType timestampType = d.path("timestampType").asText("CreateTime").equals("LogAppendTime")
            ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
        long baseOffset = Long.parseLong(d.path("baseOffset").asText("0"));
        long logAppendTime = Long.parseLong(d.path("logAppendTime").asText("-1"));
        long producerId = Long.parseLong(d.path("producerId").asText("-1"));
        short producerEpoch = (short) d.path("producerEpoch").asInt(-1);
        int baseSequence = d.path("baseSequence").asInt(-1);
        boolean transactional = d.path("isTransactional").asBoolean(false);
        boolean control = d.path("isControl").asBoolean(false);
        int partitionLeaderEpoch = d.path("partitionLeaderEpoch").asInt(-1);
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        byte magic = (byte) d.path("magic").asInt(RecordBatch.MAGIC_VALUE_V2);
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(buffer, magic, compression,
            timestampType, baseOffset, logAppendTime, producerId, producerEpoch, baseSequence, transactional,
            control, partitionLeaderEpoch, buffer.capacity());
        for (JsonNode r : d.path("records")) {
            long offset = baseOffset + r.path("offsetDelta").asLong();
            long timestamp = Long.parseLong(r.path("timestamp").asText("-1"));
            List<Header> headers = new ArrayList<>();
            for (JsonNode h : r.path("headers")) headers.add(new RecordHeader(h.path("key").asText(), bytesOrNull(h.get("value"))));
            builder.appendWithOffset(offset, timestamp, bytesOrNull(r.get("key")), bytesOrNull(r.get("value")),
                headers.toArray(new Header[0]));
        }
        MemoryRecords records = builder.build();
        ByteBuffer out = records.buffer();
        byte[] bytes = new byte[out.remaining()];
        out.duplicate().get(bytes);
        ObjectNode result = NODES.objectNode();
        result.put("hex", HEX.formatHex(bytes));
        return result;
    }

    private static ObjectNode buildMarker(JsonNode d) {
        org.apache.kafka.common.record.internal.EndTransactionMarker marker =
            new org.apache.kafka.common.record.internal.EndTransactionMarker(
                org.apache.kafka.common.record.internal.ControlRecordType.valueOf(d.path("type").asText()),
                d.path("coordinatorEpoch").asInt());
        MemoryRecords records = MemoryRecords.withEndTransactionMarker(
            Long.parseLong(d.path("baseOffset").asText("0")),
            Long.parseLong(d.path("timestamp").asText("0")),
            d.path("partitionLeaderEpoch").asInt(-1),
            Long.parseLong(d.path("producerId").asText("-1")),
            (short) d.path("producerEpoch").asInt(-1),
            marker);
        ByteBuffer out = records.buffer();
        byte[] bytes = new byte[out.remaining()];
        out.duplicate().get(bytes);
        ObjectNode result = NODES.objectNode();
        result.put("hex", HEX.formatHex(bytes));
        return result;
    }

    private static byte[] bytesOrNull(JsonNode node) {
        if (node == null || node.isNull()) return null;
        return Base64.getDecoder().decode(node.asText());
    }

    private static ObjectNode decodeBatches(JsonNode item) {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(HEX.parseHex(item.path("hex").asText())));
        ObjectNode result = NODES.objectNode();
        ArrayNode batches = result.putArray("batches");
        for (RecordBatch batch : records.batches()) {
            batch.ensureValid();
            ObjectNode b = batches.addObject();
            b.put("magic", batch.magic());
            b.put("baseOffset", Long.toString(batch.baseOffset()));
            b.put("lastOffset", Long.toString(batch.lastOffset()));
            b.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
            b.put("compression", batch.compressionType().name);
            b.put("timestampType", batch.timestampType().name);
            if (batch instanceof DefaultRecordBatch v2) b.put("baseTimestamp", Long.toString(v2.baseTimestamp()));
            b.put("maxTimestamp", Long.toString(batch.maxTimestamp()));
            b.put("producerId", Long.toString(batch.producerId()));
            b.put("producerEpoch", batch.producerEpoch());
            b.put("baseSequence", batch.baseSequence());
            b.put("isTransactional", batch.isTransactional());
            b.put("isControl", batch.isControlBatch());
            b.put("crc", Long.toString(batch.checksum()));
            ArrayNode rs = b.putArray("records");
            for (Record r : batch) {
                r.ensureValid();
                ObjectNode o = rs.addObject();
                o.put("offset", Long.toString(r.offset()));
                o.put("timestamp", Long.toString(r.timestamp()));
                o.put("key", r.hasKey() ? base64(r.key()) : (String) null);
                o.put("value", r.hasValue() ? base64(r.value()) : (String) null);
                ArrayNode hs = o.putArray("headers");
                for (Header h : r.headers()) {
                    ObjectNode ho = hs.addObject();
                    ho.put("key", h.key());
                    ho.put("value", h.value() == null ? null : Base64.getEncoder().encodeToString(h.value()));
                }
            }
        }
        return result;
    }

    private static String base64(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }
}
