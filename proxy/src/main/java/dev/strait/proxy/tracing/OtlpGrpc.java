package dev.strait.proxy.tracing;

import dev.strait.proxy.tls.CollectorTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * OTLP over gRPC: each batch is one unary call of {@code TraceService/Export} on an HTTP/2 connection to the
 * collector (prior knowledge for {@code http}, TLS with ALPN {@code h2} for {@code https}), kept for the next batch
 * and made again when it is lost. gRPC's framing is five bytes before the protobuf message; the call's outcome is the
 * {@code grpc-status} of its trailers. The codes OTLP's specification calls retryable are tried again.
 *
 * <p>Used by the exporter's one thread, which waits on the answers; the connection runs on a loop of its own (one NIO
 * thread, made with the first call), so a collector never touches the serving loops and a proxy that does not
 * export over gRPC starts no thread for it.
 */
final class OtlpGrpc implements AutoCloseable {
    static final String PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
    private static final long CONNECT_TIMEOUT_MILLIS = 5_000;
    /** gRPC's codes OTLP/gRPC retries: CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS. */
    private static final long RETRYABLE = 1L << 1 | 1L << 4 | 1L << 8 | 1L << 10 | 1L << 11 | 1L << 14 | 1L << 15;
    private static final String[] CODES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
        "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};

    private final String userAgent;
    private EventLoopGroup loop;
    private Channel connection;
    /** What the connection's first bytes were (an HTTP/1.x answer: the wrong port). */
    private FirstBytes firstBytes;
    /** The endpoint {@link #connection} goes to: a reload naming another makes a new one. */
    private String connectedTo;

    /** @param version the proxy's, for the {@code user-agent} field; null when unknown */
    OtlpGrpc(String version) {
        this.userAgent = "strait" + (version == null ? "" : "/" + version);
    }

    /**
     * Sends one batch and waits for the collector's answer.
     *
     * @param message an {@code ExportTraceServiceRequest}, compressed if {@code options} say so
     * @param tls     made when first asked for, for an {@code https} endpoint
     */
    Delivery export(String endpoint, byte[] message, OtlpOptions options, Map<String, String> configured,
                    Map<String, String> environment, Supplier<CollectorTls> tls) throws IOException, InterruptedException {
        URI u = URI.create(endpoint);
        boolean secure = "https".equalsIgnoreCase(u.getScheme());
        boolean reused = connection != null && connection.isActive() && endpoint.equals(connectedTo);
        if (!reused) {
            connect(u, secure, secure ? tls.get() : null);
            connectedTo = endpoint;
        }
        Http2StreamChannel stream;
        try {
            stream = open();
        } catch (IOException e) {
            if (answeredInHttp1()) {
                return http1(endpoint);
            }
            if (!reused) {
                throw e;
            }
            // The kept connection was going away (the collector's GOAWAY or idle close): once more on a new one.
            connect(u, secure, secure ? tls.get() : null);
            try {
                stream = open();
            } catch (IOException again) {
                if (answeredInHttp1()) {
                    return http1(endpoint);
                }
                throw again;
            }
        }
        Answer answer = stream.pipeline().get(Answer.class);
        Http2Headers headers = new DefaultHttp2Headers()
                .method("POST").scheme(secure ? "https" : "http").authority(authority(u)).path(PATH);
        configured.forEach((name, value) -> headers.set(name.toLowerCase(Locale.ROOT), value));
        environment.forEach((name, value) -> headers.set(name.toLowerCase(Locale.ROOT), value)); // after: it wins
        headers.set("content-type", OtlpProtocol.GRPC.contentType)
                .set("te", "trailers")
                .set("grpc-timeout", options.timeoutMillis() + "m")
                .set("user-agent", userAgent);
        if (options.gzip()) {
            headers.set("grpc-encoding", "gzip");
        }
        ByteBuf framed = Unpooled.buffer(5 + message.length)
                .writeByte(options.gzip() ? 1 : 0) // the message compressed, or not
                .writeInt(message.length)
                .writeBytes(message);
        stream.write(new DefaultHttp2HeadersFrame(headers));
        stream.writeAndFlush(new DefaultHttp2DataFrame(framed, true));
        try {
            return answer.done.get(options.timeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            stream.close(); // resets the stream; the connection stays for the next batch
            return Delivery.retry("the collector did not answer in " + options.timeoutMillis() + " ms");
        } catch (ExecutionException e) {
            dropConnection();
            return answeredInHttp1() ? http1(endpoint) : Delivery.retry(describe(e.getCause()));
        }
    }

    /** Whether the connection's first bytes were an HTTP/1.x answer: the collector's answer to gRPC's preface. */
    private boolean answeredInHttp1() {
        return firstBytes != null && firstBytes.http1;
    }

    /** Trying again will not help: the endpoint speaks HTTP/1.1 (an OTLP/HTTP port, or a proxy without h2c). */
    private static Delivery http1(String endpoint) {
        return Delivery.refused("the collector answered in HTTP/1.1, not gRPC's HTTP/2: is " + endpoint
                + " its OTLP/HTTP port (4318)? OTLP/gRPC's is 4317, or set protocol http/protobuf");
    }

    private static String authority(URI u) {
        String host = u.getHost().contains(":") ? "[" + u.getHost() + "]" : u.getHost();
        return u.getPort() > 0 ? host + ":" + u.getPort() : host;
    }

    private void connect(URI u, boolean secure, CollectorTls tls) throws IOException, InterruptedException {
        dropConnection();
        if (loop == null) {
            loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("strait-tracing-grpc", true),
                    NioIoHandler.newFactory());
        }
        String host = u.getHost();
        int port = u.getPort() > 0 ? u.getPort() : secure ? 443 : 80;
        // Looked up here, on the exporter's thread: the loop never waits for a name server.
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), port);
        FirstBytes first = new FirstBytes();
        firstBytes = first;
        ChannelFuture f = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT_MILLIS)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), host, port));
                        }
                        ch.pipeline().addLast("first-bytes", first)
                                .addLast("h2", Http2FrameCodecBuilder.forClient().validateHeaders(true).build())
                                .addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                    }
                })
                .connect(address);
        if (!f.await(CONNECT_TIMEOUT_MILLIS + 1_000) || !f.isSuccess()) {
            f.channel().close();
            throw new IOException("cannot connect to " + address + ": "
                    + (f.cause() == null ? "timed out" : describe(f.cause())));
        }
        Channel ch = f.channel();
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl != null) {
            var handshake = ssl.handshakeFuture();
            if (!handshake.await(CONNECT_TIMEOUT_MILLIS) || !handshake.isSuccess()) {
                ch.close();
                throw new IOException("TLS with " + address + " failed: "
                        + (handshake.cause() == null ? "timed out" : describe(handshake.cause())));
            }
            if (!ApplicationProtocolNames.HTTP_2.equals(ssl.applicationProtocol())) {
                ch.close();
                throw new IOException("the collector at " + address + " did not agree on HTTP/2 (ALPN h2), which gRPC needs");
            }
        }
        connection = ch;
    }

    private Http2StreamChannel open() throws IOException, InterruptedException {
        var opened = new Http2StreamChannelBootstrap(connection).handler(new Answer()).open();
        if (!opened.await(CONNECT_TIMEOUT_MILLIS) || !opened.isSuccess()) {
            dropConnection();
            throw new IOException("cannot open a stream to the collector: "
                    + (opened.cause() == null ? "timed out" : describe(opened.cause())));
        }
        return opened.getNow();
    }

    private void dropConnection() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    /** The failure's message, with its first cause's where it says more (a TLS engine's "General problem"). */
    private static String describe(Throwable t) {
        String said = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        Throwable cause = t.getCause();
        while (cause != null && cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause == null || cause.getMessage() == null || said.contains(cause.getMessage()) ? said
                : said + " (" + cause.getMessage() + ")";
    }

    /** Notes whether the connection's first bytes are an HTTP/1.x answer (a wrong port), then steps aside. */
    static final class FirstBytes extends ChannelInboundHandlerAdapter {
        private static final byte[] HTTP1 = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);
        volatile boolean http1;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b && b.readableBytes() >= HTTP1.length) {
                boolean same = true;
                for (int i = 0; i < HTTP1.length && same; i++) {
                    same = b.getByte(b.readerIndex() + i) == HTTP1[i];
                }
                http1 = same;
                ctx.pipeline().remove(this);
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** What the collector's answer on one stream comes to: its status line, message and trailers. */
    static final class Answer extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Delivery> done = new CompletableFuture<>();
        private CharSequence status;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame h) {
                    if (status == null) {
                        status = h.headers().status();
                    }
                    if (h.isEndStream()) {
                        done.complete(outcome(status, h.headers(), body.toByteArray()));
                    }
                } else if (msg instanceof Http2DataFrame d) {
                    if (body.size() < 1 << 20) { // a few bytes are expected; keep no more than a MiB
                        ByteBuf b = d.content();
                        byte[] part = new byte[b.readableBytes()];
                        b.getBytes(b.readerIndex(), part);
                        body.writeBytes(part);
                    }
                    if (d.isEndStream()) {
                        done.complete(Delivery.refused("the collector's answer ended without gRPC's trailers"));
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IOException("the stream closed before the collector answered"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }

    /**
     * The call's outcome from the answer's {@code :status} and trailers ({@code grpc-status}, {@code grpc-message}):
     * an HTTP status other than 200 is mapped as gRPC's HTTP-to-gRPC table says.
     */
    static Delivery outcome(CharSequence httpStatus, Http2Headers trailers, byte[] body) {
        if (httpStatus != null && !"200".contentEquals(httpStatus)) {
            String why = "the collector answered HTTP " + httpStatus + " (not gRPC)";
            return switch (httpStatus.toString()) {
                case "429", "502", "503", "504" -> Delivery.retry(why);
                default -> Delivery.refused(why);
            };
        }
        CharSequence code = trailers.get("grpc-status");
        int status;
        try {
            status = code == null ? -1 : Integer.parseInt(code.toString());
        } catch (NumberFormatException e) {
            status = -1;
        }
        if (status == 0) {
            // The message after gRPC's five bytes, when not compressed (we asked for no compression).
            return body.length >= 5 && body[0] == 0
                    ? OtlpProtobuf.partialSuccess(java.util.Arrays.copyOfRange(body, 5, body.length))
                    : Delivery.TAKEN;
        }
        if (status < 0) {
            return Delivery.refused("the collector's answer has no gRPC status");
        }
        CharSequence message = trailers.get("grpc-message");
        String why = "grpc-status " + status + (status < CODES.length ? " " + CODES[status] : "")
                + (message == null ? "" : ": " + percentDecoded(message.toString()));
        return status < 64 && (RETRYABLE & 1L << status) != 0 ? Delivery.retry(why) : Delivery.refused(why);
    }

    /** {@code grpc-message} is percent-encoded UTF-8. */
    private static String percentDecoded(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    @Override
    public void close() {
        dropConnection();
        if (loop != null) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
