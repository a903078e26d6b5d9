package dev.strait.proxy.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Builds the pre-encoded part of a response head once, when a table or cache entry is made, so the
 * request path only copies bytes (see docs/adr/0002-route-table.md).
 */
public final class ResponseHead {
    private final StringBuilder sb = new StringBuilder(256);

    private ResponseHead(int status) {
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        sb.append("HTTP/1.1 ").append(status).append(' ').append(s.reasonPhrase()).append("\r\n");
    }

    public static ResponseHead status(int status) {
        return new ResponseHead(status);
    }

    public ResponseHead header(String name, Object value) {
        sb.append(name).append(": ").append(value).append("\r\n");
        return this;
    }

    public ResponseHead headers(Map<String, String> headers) {
        headers.forEach(this::header);
        return this;
    }

    /** Status line and header lines, each CRLF-terminated; no Date, no Connection, no blank line. */
    public byte[] encode() {
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
