package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Writes a Jackson tree as JSON without an ObjectMapper (whose start-up cost a sidecar would pay on
 * every boot for a few kilobytes of output). Keys keep their insertion order, so output is canonical
 * for trees built in a fixed order.
 */
final class Json {
    private Json() {}

    static String write(JsonNode node, boolean pretty) {
        StringBuilder sb = new StringBuilder(1024);
        write(node, sb, pretty, 0);
        return sb.toString();
    }

    private static void write(JsonNode n, StringBuilder sb, boolean pretty, int depth) {
        if (n.isObject()) {
            if (n.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, pretty, depth + 1);
                string(e.getKey(), sb);
                sb.append(pretty ? " : " : ":");
                write(e.getValue(), sb, pretty, depth + 1);
            }
            newline(sb, pretty, depth);
            sb.append('}');
        } else if (n.isArray()) {
            if (n.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                newline(sb, pretty, depth + 1);
                write(n.get(i), sb, pretty, depth + 1);
            }
            newline(sb, pretty, depth);
            sb.append(']');
        } else if (n.isTextual()) {
            string(n.textValue(), sb);
        } else if (n.isNull() || n.isMissingNode()) {
            sb.append("null");
        } else {
            sb.append(n.asText()); // numbers and booleans
        }
    }

    private static void newline(StringBuilder sb, boolean pretty, int depth) {
        if (pretty) {
            sb.append('\n');
            for (int i = 0; i < depth; i++) {
                sb.append("  ");
            }
        }
    }

    private static void string(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
