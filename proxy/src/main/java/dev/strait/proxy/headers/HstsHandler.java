package dev.strait.proxy.headers;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCounted;
import java.nio.channels.FileChannel;
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
    private final class HstsExchange extends ForwardingExchange {
        HstsExchange(Exchange ex) {
            super(ex);
        }

        private byte[] head(byte[] head) {
            return HeadLines.value(head, "strict-transport-security") != null ? head : HeadLines.concat(head, line);
        }

        private HttpHeaders fields(HttpHeaders h) {
            if (!h.contains(FIELD)) {
                h.set(FIELD, value);
            }
            return h;
        }

        @Override
        public void sendPreEncoded(byte[] head, byte[] body) {
            ex.sendPreEncoded(head(head), Unpooled.wrappedBuffer(body));
        }

        @Override
        public void sendPreEncoded(byte[] head, ByteBuf body) {
            ex.sendPreEncoded(head(head), body);
        }

        @Override
        public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
            ex.sendPreEncoded(extra != null && HeadLines.value(extra, "strict-transport-security") != null ? head
                    : head(head), extra, body);
        }

        @Override
        public void sendFile(byte[] head, FileChannel file, long offset, long length) {
            ex.sendFile(head(head), file, offset, length);
        }

        @Override
        public void sendFileParts(byte[] head, FileParts body) {
            ex.sendFileParts(head(head), body);
        }

        @Override
        public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
            ex.sendMapped(head(head), body, mapping);
        }

        @Override
        public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
            ex.send(status, fields(headers), body);
        }

        @Override
        public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
            ex.startResponse(status, fields(headers), contentLength);
        }

        @Override
        public void sendError(HttpResponseStatus status) {
            sendError(status, new DefaultHttpHeaders());
        }

        @Override
        public void sendError(HttpResponseStatus status, HttpHeaders headers) {
            ex.sendError(status, fields(headers));
        }

        @Override
        public void switchProtocols(HttpHeaders headers, io.netty.channel.ChannelHandler tunnel) {
            ex.switchProtocols(fields(headers), tunnel);
        }
    }
}
