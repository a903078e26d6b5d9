package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The channel's messages as bytes (one frame each, length prefix added by the pipeline). */
final class Messages {
    static final int PROTOCOL = 1;
    /** The hello feature of a proxy that applies {@code delta} messages. */
    static final String DELTA = "delta";
    /** Large enough for tens of thousands of routes; a bigger frame is a broken or hostile peer. */
    static final int MAX_FRAME = 64 * 1024 * 1024;
    static final ObjectMapper JSON = new ObjectMapper();

    private Messages() {}

    /** {@code {"type":"snapshot","version":...,"config":{...}}}, made once per version and shared by all sessions. */
    static byte[] snapshot(String version, String configJson) {
        String text = "{\"type\":\"snapshot\",\"version\":\"" + version + "\",\"config\":" + configJson + "}";
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code {"type":"delta","base":...,"version":...,<the delta's fields>}}. */
    static byte[] delta(String base, String version, ObjectNode delta) {
        ObjectNode n = JSON.createObjectNode().put("type", "delta").put("base", base).put("version", version);
        n.setAll(delta);
        return n.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] ping() {
        return "{\"type\":\"ping\"}".getBytes(StandardCharsets.UTF_8);
    }

    static byte[] error(String message) {
        ObjectNode n = JSON.createObjectNode().put("type", "error").put("message", message);
        return n.toString().getBytes(StandardCharsets.UTF_8);
    }

    static JsonNode parse(byte[] frame) throws IOException {
        return JSON.readTree(frame);
    }
}
