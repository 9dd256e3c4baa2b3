// Prints Apache Kafka's broker error table as JSON, read by reflection from the pinned
// kafka-clients jar: every constant of org.apache.kafka.common.protocol.Errors with its code,
// name, default message and where its exception class sits in the hierarchy.
//
// Run: java -cp '<libDir>/*' ErrorsExtractor.java
// Output: {"source": "kafka-clients-<v>.jar", "count": N, "errors": [{"code", "name", "message",
//          "exceptionClass", "retriable", "invalidMetadata"}, ...]} sorted by code.
//
// The jar is the authority: the emitter never guesses a flag that this program did not read.
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

public class ErrorsExtractor {
    public static void main(String[] args) throws Exception {
        Class<?> errorsClass = Class.forName("org.apache.kafka.common.protocol.Errors");
        Class<?> retriableClass = Class.forName("org.apache.kafka.common.errors.RetriableException");
        Class<?> invalidMetadataClass = Class.forName("org.apache.kafka.common.errors.InvalidMetadataException");
        Method code = errorsClass.getMethod("code");
        Method message = errorsClass.getMethod("message");
        Method exception = errorsClass.getMethod("exception");

        List<Object[]> rows = new ArrayList<>();
        for (Object constant : errorsClass.getEnumConstants()) {
            short c = (Short) code.invoke(constant);
            String name = ((Enum<?>) constant).name();
            Throwable ex = (Throwable) exception.invoke(constant);
            // NONE has no exception; its message is the enum's own.
            String text = ex != null && ex.getMessage() != null ? ex.getMessage() : (String) message.invoke(constant);
            String exClass = ex == null ? null : ex.getClass().getName();
            boolean retriable = ex != null && retriableClass.isInstance(ex);
            boolean invalidMetadata = ex != null && invalidMetadataClass.isInstance(ex);
            rows.add(new Object[] {c, name, text, exClass, retriable, invalidMetadata});
        }
        rows.sort(Comparator.comparingInt(r -> (Short) r[0]));

        // The jar's file name (kafka-clients-<version>.jar) says which release was read.
        String jar = errorsClass.getProtectionDomain().getCodeSource().getLocation().getPath();
        String source = jar.substring(jar.lastIndexOf('/') + 1);

        StringBuilder out = new StringBuilder();
        out.append("{\"source\":").append(quote(source));
        out.append(",\"count\":").append(rows.size());
        out.append(",\"errors\":[");
        for (int i = 0; i < rows.size(); i++) {
            Object[] r = rows.get(i);
            if (i > 0) out.append(',');
            out.append("\n{\"code\":").append(r[0]);
            out.append(",\"name\":").append(quote((String) r[1]));
            out.append(",\"message\":").append(quote((String) r[2]));
            out.append(",\"exceptionClass\":").append(r[3] == null ? "null" : quote((String) r[3]));
            out.append(",\"retriable\":").append(r[4]);
            out.append(",\"invalidMetadata\":").append(r[5]);
            out.append('}');
        }
        out.append("\n]}\n");
        System.out.print(out);
    }

    private static String quote(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20 || ch > 0x7e) b.append(String.format("\\u%04x", (int) ch));
                    else b.append(ch);
                }
            }
        }
        return b.append('"').toString();
    }
}
