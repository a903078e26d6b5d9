package dev.strait.proxy.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * An OTLP/gRPC traces receiver: grpc-java's own server (its shaded Netty) on 127.0.0.1, port 0, serving
 * {@code opentelemetry.proto.collector.trace.v1.TraceService/Export} with opentelemetry-proto's messages, as an
 * OpenTelemetry collector does on 4317. It keeps each span taken (in OTLP's JSON form, as {@link OtlpCollector}) and
 * the metadata of the last call, and answers what {@link #answer} says.
 */
final class GrpcCollector implements AutoCloseable {
    static final MethodDescriptor<ExportTraceServiceRequest, ExportTraceServiceResponse> EXPORT =
            MethodDescriptor.<ExportTraceServiceRequest, ExportTraceServiceResponse>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(MethodDescriptor.generateFullMethodName(
                            "opentelemetry.proto.collector.trace.v1.TraceService", "Export"))
                    .setRequestMarshaller(ProtoUtils.marshaller(ExportTraceServiceRequest.getDefaultInstance()))
                    .setResponseMarshaller(ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
                    .build();
    private static final Context.Key<Metadata> METADATA = Context.key("metadata");

    private final Server server;
    private final String scheme;
    private final BlockingQueue<JsonNode> spans = new LinkedBlockingQueue<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    /** The status to answer (OK: the batch is taken, with {@link #partialSuccess} if set). */
    final AtomicReference<Status> answer = new AtomicReference<>(Status.OK);
    final AtomicReference<ExportTracePartialSuccess> partialSuccess = new AtomicReference<>();
    /** While set, calls get no answer (a collector that hangs). */
    volatile boolean stalled;
    volatile Metadata lastMetadata;

    /** A cleartext (h2c) collector. */
    GrpcCollector() throws IOException {
        this(b -> b, "http");
    }

    /**
     * A TLS collector with {@code cert} and {@code key} (PEM files); with {@code clientCa}, clients must show a
     * certificate it issued.
     */
    static GrpcCollector tls(File cert, File key, File clientCa) throws IOException {
        var ssl = GrpcSslContexts.forServer(cert, key);
        if (clientCa != null) {
            ssl.trustManager(clientCa).clientAuth(ClientAuth.REQUIRE);
        }
        var context = ssl.build();
        return new GrpcCollector(b -> b.sslContext(context), "https");
    }

    /** @param idleMillis 0, or how long the collector keeps a connection that carries no call */
    static GrpcCollector closingIdleConnectionsAfter(long idleMillis) throws IOException {
        return new GrpcCollector(b -> b.maxConnectionIdle(idleMillis, TimeUnit.MILLISECONDS), "http");
    }

    private GrpcCollector(UnaryOperator<NettyServerBuilder> settings, String scheme) throws IOException {
        this.scheme = scheme;
        ServerServiceDefinition service = ServerServiceDefinition.builder("opentelemetry.proto.collector.trace.v1.TraceService")
                .addMethod(EXPORT, ServerCalls.asyncUnaryCall((request, observer) -> {
                    calls.incrementAndGet();
                    lastMetadata = METADATA.get();
                    if (stalled) {
                        return;
                    }
                    Status status = answer.get();
                    if (!status.isOk()) {
                        observer.onError(status.asRuntimeException());
                        return;
                    }
                    JsonNode batch = OtlpCollector.asJson(request);
                    for (JsonNode rs : batch.path("resourceSpans")) {
                        for (JsonNode ss : rs.path("scopeSpans")) {
                            ss.path("spans").forEach(spans::add);
                        }
                    }
                    ExportTraceServiceResponse.Builder response = ExportTraceServiceResponse.newBuilder();
                    if (partialSuccess.get() != null) {
                        response.setPartialSuccess(partialSuccess.get());
                    }
                    observer.onNext(response.build());
                    observer.onCompleted();
                }))
                .build();
        ServerInterceptor keepMetadata = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                               ServerCallHandler<Q, A> next) {
                return Contexts.interceptCall(Context.current().withValue(METADATA, headers), call, headers, next);
            }
        };
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(io.grpc.ServerInterceptors.intercept(service, keepMetadata))
                .addTransportFilter(new io.grpc.ServerTransportFilter() {
                    @Override
                    public io.grpc.Attributes transportReady(io.grpc.Attributes attributes) {
                        connections.incrementAndGet();
                        return attributes;
                    }

                    @Override
                    public void transportTerminated(io.grpc.Attributes attributes) {
                        closed.incrementAndGet();
                    }
                });
        server = settings.apply(b).build().start();
    }

    /** The endpoint a config names: {@code http://127.0.0.1:port} (https: {@code localhost}, the certificate's name). */
    String endpoint() {
        return scheme + "://" + (scheme.equals("https") ? "localhost" : "127.0.0.1") + ":" + server.getPort();
    }

    /** The next span taken, waiting up to 10 s. */
    JsonNode next() throws InterruptedException {
        JsonNode s = spans.poll(10, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("no span reached the gRPC collector in 10 s");
        }
        return s;
    }

    /** A field of the last call's metadata, or null. */
    String header(String name) {
        Metadata m = lastMetadata;
        return m == null ? null : m.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
