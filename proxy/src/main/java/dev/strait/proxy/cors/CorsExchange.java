package dev.strait.proxy.cors;

import dev.strait.model.HostPort;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * The exchange of a request from an allowed origin, as the rule's action sees it: every answer it gives
 * carries the CORS fields (ADR 0065). Pre-encoded heads get them as extra lines, streamed and general
 * answers in their headers, replacing any the upstream sent (as ingress-nginx's {@code more_set_headers}),
 * error answers too (a 502, a 404), so a browser app sees them as such. Everything else is the server's
 * exchange, unchanged.
 */
final class CorsExchange implements Exchange {
    private final Exchange ex;
    private final CorsPolicy policy;
    private final String allowOrigin;
    private final byte[] lines;

    CorsExchange(Exchange ex, CorsPolicy policy, String allowOrigin) {
        this.ex = ex;
        this.policy = policy;
        this.allowOrigin = allowOrigin;
        StringBuilder sb = new StringBuilder("Access-Control-Allow-Origin: ").append(allowOrigin).append("\r\n");
        if (!allowOrigin.equals("*")) {
            sb.append("Vary: Origin\r\n"); // the answer differs by origin: caches must keep them apart
        }
        byte[] origin = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        lines = concat(origin, policy.answerLines);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
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

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        ex.sendPreEncoded(head, lines, Unpooled.wrappedBuffer(body));
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        ex.sendPreEncoded(head, lines, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        ex.sendPreEncoded(head, concat(extra, lines), body);
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(concat(head, lines), file, offset, length);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(concat(head, lines), body);
    }

    @Override
    public boolean sendsMappedFiles() {
        return ex.sendsMappedFiles();
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(concat(head, lines), body, mapping);
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

    // ---- the rest is the server's exchange ----

    @Override
    public HttpRequest request() {
        return ex.request();
    }

    @Override
    public String path() {
        return ex.path();
    }

    @Override
    public String query() {
        return ex.query();
    }

    @Override
    public boolean isHead() {
        return ex.isHead();
    }

    @Override
    public ByteBufAllocator alloc() {
        return ex.alloc();
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

    @Override
    public EventLoop eventLoop() {
        return ex.eventLoop();
    }

    @Override
    public SocketAddress remoteAddress() {
        return ex.remoteAddress();
    }

    @Override
    public SocketAddress clientAddress() {
        return ex.clientAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return ex.localAddress();
    }

    @Override
    public String scheme() {
        return ex.scheme();
    }

    @Override
    public String host() {
        return ex.host();
    }

    @Override
    public long startNanos() {
        return ex.startNanos();
    }

    @Override
    public boolean hasBody() {
        return ex.hasBody();
    }

    @Override
    public void receiveBody(BodyReceiver receiver) {
        ex.receiveBody(receiver);
    }

    @Override
    public void pauseReading() {
        ex.pauseReading();
    }

    @Override
    public void resumeReading() {
        ex.resumeReading();
    }

    @Override
    public void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
        ex.sendInformational(status, headers);
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        ex.sendBodyPart(data);
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        ex.endResponse(trailers);
    }

    @Override
    public boolean isWritable() {
        return ex.isWritable();
    }

    @Override
    public void onWritable(Runnable task) {
        ex.onWritable(task);
    }

    @Override
    public void onCancel(Runnable task) {
        ex.onCancel(task);
    }

    @Override
    public void upstream(HostPort endpoint) {
        ex.upstream(endpoint);
    }

    @Override
    public void abort() {
        ex.abort();
    }

    @Override
    public void holdFlush() {
        ex.holdFlush();
    }

    @Override
    public void flush() {
        ex.flush();
    }

    @Override
    public void switchProtocols(HttpHeaders headers, ChannelHandler tunnel) {
        ex.switchProtocols(headers, tunnel);
    }
}
