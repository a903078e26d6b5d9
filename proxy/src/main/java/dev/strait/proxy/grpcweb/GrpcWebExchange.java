package dev.strait.proxy.grpcweb;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.CharsetUtil;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * A gRPC-Web request (a browser's, HTTP/1.1 or HTTP/2) as its gRPC upstream sees it, and the gRPC answer as the
 * browser reads it (ADR 0088; the protocol is gRPC's PROTOCOL-WEB.md, as Envoy's grpc_web filter and Contour
 * serve it):
 *
 * <ul>
 *   <li>the request's {@code Content-Type} {@code application/grpc-web[+proto]} becomes {@code application/grpc[+proto]},
 *       with {@code TE: trailers}; in text mode ({@code application/grpc-web-text}) the body is base64, decoded here
 *       as it streams, and its {@code Content-Length} dropped;</li>
 *   <li>the answer's {@code Content-Type} becomes the gRPC-Web one the request used, its messages pass as they are
 *       (base64 in text mode), and its trailers ({@code grpc-status}, {@code grpc-message}) become the body's last
 *       frame: flag {@code 0x80}, a 4-byte length, then {@code name:value\r\n} lines, since a browser cannot read
 *       HTTP trailers.</li>
 * </ul>
 */
public final class GrpcWebExchange extends ForwardingExchange {
    private static final String GRPC_WEB = "application/grpc-web";
    private static final String GRPC_WEB_TEXT = "application/grpc-web-text";

    private final boolean text;
    /** The answer's content type: the request's (gRPC-Web) kind with the upstream's message format. */
    private final String answerType;
    private boolean started;

    private GrpcWebExchange(Exchange ex, boolean text, String format) {
        super(ex);
        this.text = text;
        this.answerType = (text ? GRPC_WEB_TEXT : GRPC_WEB) + format;
    }

    /** Whether {@code ex} is a gRPC-Web call: its {@code Content-Type} says so. */
    public static boolean isGrpcWeb(Exchange ex) {
        String type = ex.request().headers().get(HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.regionMatches(true, 0, GRPC_WEB, 0, GRPC_WEB.length());
    }

    /**
     * {@code ex}, a gRPC-Web call, as a gRPC one: its request's fields are changed in place (the access log shows
     * what went upstream), its body and answer through the exchange returned.
     */
    public static Exchange toGrpc(Exchange ex) {
        HttpHeaders h = ex.request().headers();
        String type = h.get(HttpHeaderNames.CONTENT_TYPE).toLowerCase(Locale.ROOT);
        boolean text = type.startsWith(GRPC_WEB_TEXT);
        String rest = type.substring(text ? GRPC_WEB_TEXT.length() : GRPC_WEB.length());
        String format = rest.startsWith("+") ? rest.split(";", 2)[0].trim() : ""; // "+proto", "+json"
        h.set(HttpHeaderNames.CONTENT_TYPE, "application/grpc" + format);
        h.set(HttpHeaderNames.TE, HttpHeaders.Values.TRAILERS);
        if (text) {
            h.remove(HttpHeaderNames.CONTENT_LENGTH); // the decoded body is shorter; HTTP/2 frames it anyway
        }
        return new GrpcWebExchange(ex, text, format);
    }

    // ---- the request body ----

    @Override
    public void receiveBody(BodyReceiver receiver) {
        ex.receiveBody(text ? new Base64Body(receiver) : receiver);
    }

    /** A text-mode body decoded as it arrives, four characters at a time; a group may end in padding anywhere. */
    private final class Base64Body implements BodyReceiver {
        private final BodyReceiver to;
        private final byte[] group = new byte[4];
        private int held;
        private boolean broken;

        Base64Body(BodyReceiver to) {
            this.to = to;
        }

        @Override
        public void onBodyPart(ByteBuf data) {
            if (broken) {
                data.release();
                return;
            }
            ByteBuf out = ex.alloc().buffer(data.readableBytes() * 3 / 4 + 3);
            try {
                while (data.isReadable()) {
                    byte c = data.readByte();
                    if (c == '\r' || c == '\n' || c == ' ') {
                        continue;
                    }
                    group[held++] = c;
                    if (held == 4) {
                        held = 0;
                        if (!Base64Groups.decode(group, out)) {
                            out.release();
                            refuse("a gRPC-Web text body that is not base64");
                            return;
                        }
                    }
                }
            } finally {
                data.release();
            }
            if (out.isReadable()) {
                to.onBodyPart(out);
            } else {
                out.release();
            }
        }

        @Override
        public void onBodyEnd(HttpHeaders trailers) {
            if (broken) {
                return;
            }
            if (held != 0) {
                refuse("a gRPC-Web text body that ends inside a base64 group");
                return;
            }
            to.onBodyEnd(trailers);
        }

        /**
         * The body cannot be decoded: the call ends (the upstream's stream is reset, never given a part of it) and
         * the client is told why, the server reading and dropping the rest; an answer already started is cut.
         */
        private void refuse(String why) {
            broken = true;
            to.onBodyAbort(new IllegalArgumentException(why));
            if (started) {
                ex.abort();
            } else {
                ex.sendError(HttpResponseStatus.BAD_REQUEST, why);
            }
        }

        @Override
        public void onBodyAbort(Throwable cause) {
            if (!broken) {
                to.onBodyAbort(cause);
            }
        }
    }

    // ---- the answer ----

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        started = true;
        boolean trailersOnly = headers.contains("grpc-status") && contentLength == 0;
        headers.set(HttpHeaderNames.CONTENT_TYPE, answerType);
        // Messages pass as they come and a trailer frame follows, so the length is known only at the end.
        ex.startResponse(status, headers, trailersOnly ? 0 : -1);
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (!text) {
            ex.sendBodyPart(data);
            return;
        }
        ex.sendBodyPart(data.isReadable() ? encode(data) : data);
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (!started) {
            ex.endResponse(trailers);
            return;
        }
        if (trailers != null && !trailers.isEmpty()) {
            ByteBuf frame = trailerFrame(trailers);
            ex.sendBodyPart(text ? encode(frame) : frame);
        }
        ex.endResponse(null);
    }

    /** The trailers as gRPC-Web's last frame: {@code 0x80}, the length, then {@code name:value\r\n} lines. */
    private ByteBuf trailerFrame(HttpHeaders trailers) {
        StringBuilder lines = new StringBuilder();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = trailers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            lines.append(e.getKey().toString().toLowerCase(Locale.ROOT)).append(':').append(e.getValue()).append("\r\n");
        }
        byte[] block = lines.toString().getBytes(CharsetUtil.ISO_8859_1);
        ByteBuf frame = ex.alloc().buffer(5 + block.length);
        frame.writeByte(0x80).writeInt(block.length).writeBytes(block);
        return frame;
    }

    /**
     * Text mode: {@code data} (taken) as base64, padded on its own, as Envoy's filter encodes each part: a
     * streamed message is whole at the client when its part arrives, not when the next one does, and gRPC-Web
     * clients decode four characters at a time, padding included.
     */
    private ByteBuf encode(ByteBuf data) {
        try {
            return ByteBufUtil.writeAscii(ex.alloc(),
                    java.util.Base64.getEncoder().encodeToString(ByteBufUtil.getBytes(data)));
        } finally {
            data.release();
        }
    }
}
