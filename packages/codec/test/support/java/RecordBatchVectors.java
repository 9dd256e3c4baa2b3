// Prints golden record-batch vectors as JSON, built by Apache Kafka's own classes
// (kafka-clients MemoryRecordsBuilder) from the pinned release. Run once, commit the output:
//   java -cp "$(node packages/testkit/bin/kafka-dist.mjs | node -pe 'JSON.parse(require("fs").readFileSync(0)).classpath')" \
//     packages/codec/test/support/java/RecordBatchVectors.java > fixtures/vectors/record-batches.json
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

public class RecordBatchVectors {
    record Rec(String key, String value, long timestamp, String[][] headers) {}

    static final List<String> out = new ArrayList<>();

    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static void emit(String name, byte magic, String codec, TimestampType tsType, long baseOffset,
                     long logAppendTime, long producerId, short epoch, int baseSequence,
                     boolean transactional, int leaderEpoch, List<Rec> recs) {
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        Compression compression = Compression.of(CompressionType.forName(codec)).build();
        MemoryRecordsBuilder b = magic == RecordBatch.MAGIC_VALUE_V2
            ? MemoryRecords.builder(buf, magic, compression, tsType, baseOffset, logAppendTime,
                producerId, epoch, baseSequence, transactional, leaderEpoch)
            : MemoryRecords.builder(buf, magic, compression, tsType, baseOffset, logAppendTime);
        for (Rec r : recs) {
            Header[] hs = new Header[r.headers.length];
            for (int i = 0; i < hs.length; i++) hs[i] = new RecordHeader(r.headers[i][0], utf8(r.headers[i][1]));
            if (magic == RecordBatch.MAGIC_VALUE_V2) b.append(r.timestamp, utf8(r.key), utf8(r.value), hs);
            else b.append(r.timestamp, utf8(r.key), utf8(r.value));
        }
        write(name, magic, codec, tsType, baseOffset, logAppendTime, producerId, epoch, baseSequence,
            transactional, false, leaderEpoch, recs, b.build());
    }

    static void write(String name, byte magic, String codec, TimestampType tsType, long baseOffset,
                      long logAppendTime, long producerId, short epoch, int baseSequence,
                      boolean transactional, boolean control, int leaderEpoch, List<Rec> recs,
                      MemoryRecords records) {
        ByteBuffer bb = records.buffer();
        byte[] bytes = new byte[bb.remaining()];
        bb.duplicate().get(bytes);
        StringBuilder s = new StringBuilder();
        s.append("  {\"name\": ").append(q(name))
            .append(", \"magic\": ").append(magic)
            .append(", \"compression\": ").append(q(codec))
            .append(", \"timestampType\": ").append(q(tsType == TimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime"))
            .append(", \"baseOffset\": \"").append(baseOffset).append('"')
            .append(", \"logAppendTime\": \"").append(logAppendTime).append('"')
            .append(", \"producerId\": \"").append(producerId).append('"')
            .append(", \"producerEpoch\": ").append(epoch)
            .append(", \"baseSequence\": ").append(baseSequence)
            .append(", \"transactional\": ").append(transactional)
            .append(", \"control\": ").append(control)
            .append(", \"partitionLeaderEpoch\": ").append(leaderEpoch)
            .append(",\n   \"records\": [");
        for (int i = 0; i < recs.size(); i++) {
            Rec r = recs.get(i);
            if (i > 0) s.append(", ");
            s.append("{\"key\": ").append(q(r.key)).append(", \"value\": ").append(q(r.value))
                .append(", \"timestamp\": \"").append(r.timestamp).append("\", \"headers\": [");
            for (int h = 0; h < r.headers.length; h++) {
                if (h > 0) s.append(", ");
                s.append("{\"key\": ").append(q(r.headers[h][0])).append(", \"value\": ").append(q(r.headers[h][1])).append('}');
            }
            s.append("]}");
        }
        s.append("],\n   \"hex\": \"").append(HexFormat.of().formatHex(bytes)).append("\"}");
        out.add(s.toString());
    }

    public static void main(String[] args) {
        long t = 1_700_000_000_000L;
        List<Rec> basic = List.of(
            new Rec("key-0", "value-0", t, new String[0][]),
            new Rec(null, "value-1 with a null key", t + 5, new String[][] {{"trace", "abc"}, {"empty", ""}, {"nullv", null}}),
            new Rec("tombstone", null, t - 17, new String[][] {{"ключ", "значение"}}),
            new Rec("", "", t + 1000, new String[0][]));
        StringBuilder longValue = new StringBuilder();
        for (int i = 0; i < 300; i++) longValue.append("lorem ipsum ").append(i).append(' ');
        List<Rec> many = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            many.add(new Rec(i % 5 == 0 ? null : "k" + i, i % 7 == 0 ? null : longValue.substring(0, 50 + i * 40),
                t + i * 3 - 60, i % 3 == 0 ? new String[][] {{"h" + i, "v" + i}} : new String[0][]));
        }
        short noEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        long noPid = RecordBatch.NO_PRODUCER_ID;
        int noSeq = RecordBatch.NO_SEQUENCE;
        int noLeader = RecordBatch.NO_PARTITION_LEADER_EPOCH;
        TimestampType ct = TimestampType.CREATE_TIME;

        emit("v2 uncompressed, nulls, empty and unicode headers, negative delta", (byte) 2, "none", ct, 0L, -1L, noPid, noEpoch, noSeq, false, noLeader, basic);
        emit("v2 uncompressed, idempotent producer, base offset 100, leader epoch 3", (byte) 2, "none", ct, 100L, -1L, 1000L, (short) 5, 42, false, 3, basic);
        emit("v2 uncompressed, transactional", (byte) 2, "none", ct, 7L, -1L, 77L, (short) 0, 0, true, noLeader, many.subList(0, 3));
        emit("v2 uncompressed, LogAppendTime", (byte) 2, "none", TimestampType.LOG_APPEND_TIME, 0L, t + 99, noPid, noEpoch, noSeq, false, noLeader, basic);
        emit("v2 uncompressed, 50 records", (byte) 2, "none", ct, 1L << 40, -1L, noPid, noEpoch, noSeq, false, noLeader, many);
        for (String codec : new String[] {"gzip", "snappy", "lz4", "zstd"}) {
            emit("v2 " + codec + ", 50 records", (byte) 2, codec, ct, 5L, -1L, 1000L, (short) 1, 9, false, noLeader, many);
            emit("v2 " + codec + ", nulls and headers", (byte) 2, codec, ct, 0L, -1L, noPid, noEpoch, noSeq, false, noLeader, basic);
        }
        for (byte magic : new byte[] {0, 1}) {
            List<Rec> legacy = new ArrayList<>();
            for (Rec r : basic) legacy.add(new Rec(r.key, r.value, magic == 0 ? -1L : r.timestamp, new String[0][]));
            for (String codec : new String[] {"none", "gzip", "snappy", "lz4"}) {
                emit("v" + magic + " " + codec, magic, codec, ct, 10L, -1L, noPid, noEpoch, noSeq, false, noLeader, legacy);
            }
        }
        List<Rec> legacyLat = new ArrayList<>();
        for (Rec r : basic) legacyLat.add(new Rec(r.key, r.value, r.timestamp, new String[0][]));
        emit("v1 gzip, LogAppendTime", (byte) 1, "gzip", TimestampType.LOG_APPEND_TIME, 20L, t + 99, noPid, noEpoch, noSeq, false, noLeader, legacyLat);

        for (ControlRecordType type : new ControlRecordType[] {ControlRecordType.COMMIT, ControlRecordType.ABORT}) {
            MemoryRecords m = MemoryRecords.withEndTransactionMarker(500L, t, 4, 4242L, (short) 2,
                new EndTransactionMarker(type, 11));
            write("v2 control batch " + type.name(), (byte) 2, "none", ct, 500L, -1L, 4242L, (short) 2, -1, true, true, 4, List.of(), m);
        }
        System.out.println("{\"source\": \"Apache Kafka " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion()
            + " kafka-clients MemoryRecordsBuilder / MemoryRecords.withEndTransactionMarker, printed by"
            + " packages/codec/test/support/java/RecordBatchVectors.java\",\n \"vectors\": [\n"
            + String.join(",\n", out) + "\n]}");
    }
}
