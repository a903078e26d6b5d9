package dev.strait.proxy.tracing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * A batch of spans as a binary protobuf {@code ExportTraceServiceRequest} (opentelemetry-proto's
 * {@code collector/trace/v1} and {@code trace/v1}), written by hand: the messages are few and fixed, and a
 * protobuf runtime and generated classes would weigh more than the proxy's whole tracing. Field numbers are the
 * .proto files'; each nested message is written into its own buffer, then framed with its length.
 */
final class OtlpProtobuf {
    private OtlpProtobuf() {}

    static byte[] encode(List<? extends ExportedSpan> spans, java.util.Map<String, String> resource, String version) {
        Message r = new Message();
        SpanAttributes.resource(resource, new Attributes(r, 1));                      // Resource.attributes
        Message scope = new Message().string(1, OtlpProtocol.SCOPE);                  // InstrumentationScope.name
        if (version != null) {
            scope.string(2, version);                                                 // .version
        }
        Message scopeSpans = new Message().message(1, scope);                         // ScopeSpans.scope
        for (ExportedSpan s : spans) {
            scopeSpans.message(2, span(s));                                           // ScopeSpans.spans
        }
        Message resourceSpans = new Message().message(1, r).message(2, scopeSpans);
        return new Message().message(1, resourceSpans).bytes();                       // .resource_spans
    }

    private static Message span(ExportedSpan s) {
        RequestTrace t = s.trace();
        Message m = new Message().hex(1, t.traceId()).hex(2, t.spanId());              // trace_id, span_id
        if (t.parentSpanId() != null) {
            m.hex(4, t.parentSpanId());                                               // parent_span_id
        }
        m.string(5, s.name()).varint(6, s.kind())                                     // name, kind
                .fixed64(7, s.startNanos()).fixed64(8, s.endNanos());                 // start/end_time_unix_nano
        s.attributes(new Attributes(m, 9));                                           // attributes
        if (s.error()) {
            m.message(15, new Message().varint(3, OtlpProtocol.STATUS_ERROR));        // status.code
        }
        return m;
    }

    /** Each attribute as a {@code KeyValue} (key 1, value 2: an {@code AnyValue}) in field {@code field}. */
    private record Attributes(Message into, int field) implements SpanAttributes.Sink {
        @Override
        public void string(String key, String value) {
            into.message(field, new Message().string(1, key).message(2, new Message().string(1, value)));
        }

        @Override
        public void integer(String key, long value) {
            into.message(field, new Message().string(1, key).message(2, new Message().varint(3, value)));
        }
    }

    /**
     * The {@code partial_success} of an {@code ExportTraceServiceResponse} (field 1: {@code rejected_spans} 1,
     * {@code error_message} 2): what the collector dropped of a batch it took. {@link Delivery#TAKEN} when the answer
     * has none, or cannot be read (the batch was taken all the same).
     */
    static Delivery partialSuccess(byte[] response) {
        try {
            Reader top = new Reader(response, 0, response.length);
            while (top.more()) {
                int tag = (int) top.varint();
                if (tag == (1 << 3 | 2)) {
                    int length = (int) top.varint();
                    Reader ps = new Reader(response, top.at, top.at + length);
                    long rejected = 0;
                    String message = null;
                    while (ps.more()) {
                        int t = (int) ps.varint();
                        if (t == (1 << 3)) {
                            rejected = ps.varint();
                        } else if (t == (2 << 3 | 2)) {
                            int n = (int) ps.varint();
                            message = new String(response, ps.skip(n), n, StandardCharsets.UTF_8);
                        } else {
                            ps.skipField(t);
                        }
                    }
                    return Delivery.partly(rejected, message);
                }
                top.skipField(tag);
            }
        } catch (IndexOutOfBoundsException e) {
            // a broken answer: the batch was taken (the transport said so), what was dropped is unknown
        }
        return Delivery.TAKEN;
    }

    /** Reads fields of protobuf's wire format from {@code bytes[at..end)}; out of bounds throws. */
    private static final class Reader {
        private final byte[] bytes;
        private final int end;
        private int at;

        Reader(byte[] bytes, int at, int end) {
            if (at < 0 || end > bytes.length || at > end) {
                throw new IndexOutOfBoundsException();
            }
            this.bytes = bytes;
            this.at = at;
            this.end = end;
        }

        boolean more() {
            return at < end;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte b = next();
                v |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return v;
                }
            }
            throw new IndexOutOfBoundsException("varint too long");
        }

        /** Passes {@code n} bytes; returns where they start. */
        int skip(int n) {
            if (n < 0 || n > end - at) {
                throw new IndexOutOfBoundsException();
            }
            int start = at;
            at += n;
            return start;
        }

        void skipField(int tag) {
            switch (tag & 7) {
                case 0 -> varint();
                case 1 -> skip(8);
                case 2 -> skip((int) varint());
                case 5 -> skip(4);
                default -> throw new IndexOutOfBoundsException("wire type " + (tag & 7));
            }
        }

        private byte next() {
            if (at >= end) {
                throw new IndexOutOfBoundsException();
            }
            return bytes[at++];
        }
    }

    /** One message's fields in protobuf's wire format. */
    static final class Message {
        private static final int VARINT = 0;
        private static final int FIXED64 = 1;
        private static final int LENGTH_DELIMITED = 2;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

        Message varint(int field, long value) {
            tag(field, VARINT);
            writeVarint(value);
            return this;
        }

        Message fixed64(int field, long value) {
            tag(field, FIXED64);
            for (int i = 0; i < 8; i++) {
                out.write((int) (value >>> (8 * i)));
            }
            return this;
        }

        Message string(int field, String value) {
            return bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        /** An id written in hex, sent as its bytes. */
        Message hex(int field, String hex) {
            return bytes(field, HexFormat.of().parseHex(hex));
        }

        Message message(int field, Message m) {
            return bytes(field, m.bytes());
        }

        private Message bytes(int field, byte[] b) {
            tag(field, LENGTH_DELIMITED);
            writeVarint(b.length);
            out.writeBytes(b);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        private void tag(int field, int wireType) {
            writeVarint((long) field << 3 | wireType);
        }

        private void writeVarint(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
        }
    }
}
