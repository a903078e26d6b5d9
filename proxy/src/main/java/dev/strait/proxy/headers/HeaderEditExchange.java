package dev.strait.proxy.headers;

import dev.strait.proxy.http.AnswerFieldsExchange;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The exchange a rule with {@code responseHeaders} gives its action: every answer (fixed, files, proxied,
 * cached, and the action's errors) leaves with the fields changed. Pre-encoded heads lose the lines of the
 * fields removed or set, and get the set and added ones after them.
 */
final class HeaderEditExchange extends AnswerFieldsExchange {
    private final HeaderEditor edits;

    HeaderEditExchange(Exchange ex, HeaderEditor edits) {
        super(ex);
        this.edits = edits;
    }

    @Override
    protected byte[] head(byte[] head) {
        return HeadLines.concat(edits.strip(head), edits.lines);
    }

    @Override
    protected void preEncoded(byte[] head, byte[] extra, ByteBuf body) {
        if (extra == null) {
            ex.sendPreEncoded(edits.strip(head), edits.lines, body);
        } else {
            // The extra lines (a cache's Age and X-Cache, a rule's CORS fields) are changed like the head.
            ex.sendPreEncoded(head(head), edits.strip(extra), body);
        }
    }

    @Override
    protected HttpHeaders fields(HttpResponseStatus status, HttpHeaders headers) {
        edits.apply(headers);
        return headers;
    }
}
