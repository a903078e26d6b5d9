package dev.strait.proxy.tracing;

/**
 * A finished span as the encoders read it: a served request ({@link Span}, kind SERVER) or one try of it upstream
 * ({@link UpstreamSpan}, kind CLIENT).
 */
interface ExportedSpan {
    /** Its trace, its own id and its parent's. */
    RequestTrace trace();

    /** A low-cardinality name, as OpenTelemetry asks. */
    String name();

    /** OTLP's {@code SpanKind}: {@link OtlpProtocol#KIND_SERVER} or {@link OtlpProtocol#KIND_CLIENT}. */
    int kind();

    /** Nanoseconds since the epoch. */
    long startNanos();

    long endNanos();

    /** Writes its attributes to {@code out}, in order. */
    void attributes(SpanAttributes.Sink out);

    /** Whether its status is ERROR. */
    boolean error();
}
