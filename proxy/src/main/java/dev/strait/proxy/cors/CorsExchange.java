package dev.strait.proxy.cors;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * The exchange of a request from an allowed origin, as the rule's action sees it: every answer it gives
 * carries the CORS fields (ADR 0065). Pre-encoded heads get them as extra lines, streamed and general
 * answers in their headers, replacing any the upstream sent (as ingress-nginx's {@code more_set_headers}),
 * error answers too (a 502, a 404), so a browser app sees them as such. Everything else is the server's
 * exchange, unchanged.
 */
final class CorsExchange extends ForwardingExchange {
    private final CorsPolicy policy;
    private final String allowOrigin;
    private final byte[] lines;

    CorsExchange(Exchange ex, CorsPolicy policy, String allowOrigin) {
        super(ex);
        this.policy = policy;
        this.allowOrigin = allowOrigin;
        StringBuilder sb = new StringBuilder("Access-Control-Allow-Origin: ").append(allowOrigin).append("\r\n");
        if (!allowOrigin.equals("*")) {
            sb.append("Vary: Origin\r\n"); // the answer differs by origin: caches must keep them apart
        }
        byte[] origin = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        lines = HeadLines.concat(origin, policy.answerLines);
    }

    private void fields(HttpHeaders h) {
        fields(h, policy, allowOrigin);
    }

    /** Sets the fields of an answer to a request from an allowed origin in {@code h}, replacing any there. */
    static void fields(HttpHeaders h, CorsPolicy policy, String allowOrigin) {
        h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, allowOrigin);
        if (!allowOrigin.equals("*")) {
            h.add(HttpHeaderNames.VARY, "Origin");
        }
        if (policy.credentials) {
            h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
        } else {
            h.remove(HttpHeaderNames.ACCESS_CONTROL_ALLOW_CREDENTIALS);
        }
        if (!policy.exposeHeaders.isEmpty()) {
            h.set(HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, policy.exposeHeaders);
        }
    }

    /**
     * {@code head} without its {@code Access-Control-*} lines: a cached answer's head is the upstream's, stored
     * from a request that had no Origin, and the rule's fields replace its own as they do on a streamed answer
     * (two {@code Access-Control-Allow-Origin} fields fail in browsers).
     */
    static byte[] withoutCorsLines(byte[] head) {
        return HeadLines.without(head, CORS_FIELDS);
    }

    private static final String[] CORS_FIELDS = {"access-control-*"};

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        ex.sendPreEncoded(withoutCorsLines(head), lines, Unpooled.wrappedBuffer(body));
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        ex.sendPreEncoded(withoutCorsLines(head), lines, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        ex.sendPreEncoded(withoutCorsLines(head), extra == null ? lines : HeadLines.concat(extra, lines), body);
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(HeadLines.concat(head, lines), file, offset, length);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(HeadLines.concat(head, lines), body);
    }

    @Override
    public boolean sendsMappedFiles() {
        return ex.sendsMappedFiles();
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(HeadLines.concat(head, lines), body, mapping);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        fields(headers);
        ex.send(status, headers, body);
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        fields(headers);
        ex.startResponse(status, headers, contentLength);
    }

    /** The server's short error answer, with the CORS fields: a browser app must see a 502 or 404 as such. */
    @Override
    public void sendError(HttpResponseStatus status) {
        sendError(status, new io.netty.handler.codec.http.DefaultHttpHeaders());
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        fields(headers);
        ex.sendError(status, headers);
    }
}
