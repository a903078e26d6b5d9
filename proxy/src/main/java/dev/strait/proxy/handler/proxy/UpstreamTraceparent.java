package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.tracing.RequestTrace;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * The {@code traceparent} of an encoded HTTP/1.1 request head, set to one try's span (tracing.upstreamSpans): the head
 * is encoded once per request with the request's span; each try that has a span of its own writes its 16 hex digits
 * over that span's, in place for the first write and in a copy for a later try (an earlier write may share the bytes).
 */
final class UpstreamTraceparent {
    /** {@code 00-} and the 32 digits of the trace id and the dash before the span id. */
    private static final int SPAN_OFFSET = 36;

    private UpstreamTraceparent() {}

    /** Where the request's span id is in {@code head}, or -1 when its {@code traceparent} is not there. */
    static int spanIdAt(ByteBuf head, RequestTrace request) {
        ByteBuf value = Unpooled.wrappedBuffer(request.traceparent().getBytes(StandardCharsets.US_ASCII));
        int at = ByteBufUtil.indexOf(value, head);
        return at < 0 ? -1 : at - head.readerIndex() + SPAN_OFFSET;
    }

    /** {@code head} to write for a try with span {@code tryTrace}; the caller owns what is returned. */
    static ByteBuf withSpan(ByteBuf head, int spanIdAt, RequestTrace tryTrace, boolean written) {
        ByteBuf out = written ? head.copy() : head.retainedDuplicate();
        out.setCharSequence(out.readerIndex() + spanIdAt, tryTrace.spanId(), StandardCharsets.US_ASCII);
        return out;
    }
}
