package dev.strait.proxy.headers;

import dev.strait.model.Route;
import dev.strait.proxy.http.AnswerFieldsExchange;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeadLines;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * A route's {@code hsts}: each answer its rules give over https carries {@code Strict-Transport-Security}, unless
 * the answer has one of its own (the app's, or a rule's {@code responseHeaders}: {@code max-age=0} opts a path
 * out). Plain-HTTP answers never do (RFC 6797 7.2). Made with the table, outermost around each of the route's rules.
 */
public final class HstsHandler extends HandlerDecorator {
    private static final AsciiString FIELD = AsciiString.cached("strict-transport-security");

    private final String value;
    private final byte[] line;

    private HstsHandler(Handler inner, String value, byte[] line) {
        super(inner);
        this.value = value;
        this.line = line;
    }

    /** {@code handler} with the route's HSTS, or {@code handler} itself for a route without. */
    public static Handler wrap(Handler handler, Route.Hsts hsts) {
        if (hsts == null) {
            return handler;
        }
        String v = hsts.value();
        return new HstsHandler(handler, v, ("Strict-Transport-Security: " + v + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }

    @Override
    public void handle(Exchange ex) {
        inner.handle("https".equals(ex.scheme()) ? new HstsExchange(ex) : ex);
    }

    @Override
    protected Handler around(Handler bound) {
        return new HstsHandler(bound, value, line);
    }

    /** The answer with the field, where it has none. */
    private final class HstsExchange extends AnswerFieldsExchange {
        HstsExchange(Exchange ex) {
            super(ex);
        }

        @Override
        protected byte[] head(byte[] head) {
            return HeadLines.value(head, "strict-transport-security") != null ? head : HeadLines.concat(head, line);
        }

        @Override
        protected void preEncoded(byte[] head, byte[] extra, ByteBuf body) {
            if (extra != null && HeadLines.value(extra, "strict-transport-security") != null) {
                ex.sendPreEncoded(head, extra, body); // a rule's own, in the lines after the head
            } else {
                super.preEncoded(head, extra, body);
            }
        }

        @Override
        protected HttpHeaders fields(HttpResponseStatus status, HttpHeaders h) {
            if (!h.contains(FIELD)) {
                h.set(FIELD, value);
            }
            return h;
        }

        @Override
        public void switchProtocols(HttpHeaders headers, io.netty.channel.ChannelHandler tunnel) {
            ex.switchProtocols(fields(HttpResponseStatus.SWITCHING_PROTOCOLS, headers), tunnel);
        }
    }
}
