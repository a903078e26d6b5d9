package dev.strait.proxy.tracing;

import dev.strait.model.Config;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a batch goes to the collector: over HTTP in binary protobuf (OpenTelemetry's default; every receiver must take
 * it) or JSON, or over gRPC (protobuf; the collector's port 4317). The config's {@code tracing.protocol} chooses,
 * unless the environment does, as OpenTelemetry's exporters read it: {@code OTEL_EXPORTER_OTLP_TRACES_PROTOCOL}, else
 * {@code OTEL_EXPORTER_OTLP_PROTOCOL}.
 */
enum OtlpProtocol {
    PROTOBUF(Config.Tracing.PROTOBUF, "application/x-protobuf") {
        @Override
        byte[] encode(List<? extends ExportedSpan> spans, Map<String, String> resource, String version) {
            return OtlpProtobuf.encode(spans, resource, version);
        }
    },
    JSON(Config.Tracing.JSON, "application/json") {
        @Override
        byte[] encode(List<? extends ExportedSpan> spans, Map<String, String> resource, String version) {
            return OtlpJson.encode(spans, resource, version);
        }
    },
    GRPC(Config.Tracing.GRPC, "application/grpc") {
        @Override
        byte[] encode(List<? extends ExportedSpan> spans, Map<String, String> resource, String version) {
            return OtlpProtobuf.encode(spans, resource, version);
        }
    };

    /** The spans' instrumentation scope. */
    static final String SCOPE = "dev.strait.proxy";
    static final int KIND_SERVER = 2;
    static final int KIND_CLIENT = 3;
    static final int STATUS_ERROR = 2;
    private static final Logger log = LoggerFactory.getLogger(OtlpProtocol.class);

    /** As the config and OpenTelemetry's environment name it. */
    final String name;
    final String contentType;

    OtlpProtocol(String name, String contentType) {
        this.name = name;
        this.contentType = contentType;
    }

    /**
     * @param resource the resource's attributes ({@link SpanResource})
     * @param version  the proxy's version (the instrumentation scope's), or null
     */
    abstract byte[] encode(List<? extends ExportedSpan> spans, Map<String, String> resource, String version);

    /** The config's protocol ({@code http/protobuf} when it names another: the parser refuses those). */
    static OtlpProtocol of(String name) {
        return JSON.name.equals(name) ? JSON : GRPC.name.equals(name) ? GRPC : PROTOBUF;
    }

    /** The environment's protocol, or null when it names none; one Strait does not know is reported once. */
    static OtlpProtocol fromEnvironment(Map<String, String> env) {
        OtlpVariable v = OtlpVariable.of(env, "PROTOCOL");
        if (v == null) {
            return null;
        }
        for (OtlpProtocol p : values()) {
            if (p.name.equals(v.value())) {
                return p;
            }
        }
        log.warn("tracing: {}={} is not read: Strait sends http/protobuf, http/json or grpc; it sends what the config's"
                + " tracing.protocol says", v.name(), v.value());
        return null;
    }
}
