package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The channel's messages as bytes (one frame each, length prefix added by the pipeline). */
final class Messages {
    static final int PROTOCOL = 1;
    /** Large enough for tens of thousands of routes; a bigger frame is a broken or hostile peer. */
    static final int MAX_FRAME = 64 * 1024 * 1024;
    static final ObjectMapper JSON = new ObjectMapper();

    private Messages() {}

    /** {@code {"type":"snapshot","version":...,"config":{...}}}, made once per version and shared by all sessions. */
    static byte[] snapshot(String version, String configJson) {
        String text = "{\"type\":\"snapshot\",\"version\":\"" + version + "\",\"config\":" + configJson + "}";
        return text.getBytes(StandardCharsets.UTF_8);
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
