package dev.strait.proxy.http;

import dev.strait.model.HostPort;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;

/**
 * An exchange that passes every call to the server's: the base of the decorators a rule's action sees
 * ({@code cors}, header edits), which override only the answers they change.
 */
public abstract class ForwardingExchange implements Exchange {
    protected final Exchange ex;

    protected ForwardingExchange(Exchange ex) {
        this.ex = ex;
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        ex.sendPreEncoded(head, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        ex.sendPreEncoded(head, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        ex.sendPreEncoded(head, extra, body);
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(head, file, offset, length);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(head, body);
    }

    @Override
    public boolean sendsMappedFiles() {
        return ex.sendsMappedFiles();
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(head, body, mapping);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        ex.send(status, headers, body);
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        ex.startResponse(status, headers, contentLength);
    }

    @Override
    public void sendError(HttpResponseStatus status) {
        ex.sendError(status);
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        ex.sendError(status, headers);
    }

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
    public void continueBody() {
        ex.continueBody();
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
    public boolean clientGone() {
        return ex.clientGone();
    }

    @Override
    public void onEnd(Runnable task) {
        ex.onEnd(task);
    }

    @Override
    public void upstream(HostPort endpoint) {
        ex.upstream(endpoint);
    }

    @Override
    public dev.strait.proxy.tracing.RequestTrace trace() {
        return ex.trace();
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

    @Override
    public void dispatch(Exchange sub) {
        ex.dispatch(sub);
    }

    @Override
    public boolean requestIdSettled() {
        return ex.requestIdSettled();
    }

    @Override
    public boolean checking() {
        return ex.checking();
    }
}
