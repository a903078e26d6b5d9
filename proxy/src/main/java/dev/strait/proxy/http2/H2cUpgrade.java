package dev.strait.proxy.http2;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.util.AsciiString;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * {@code Upgrade: h2c} on a cleartext HTTP/1.1 connection (RFC 7540 3.2): the HTTP/1.1 server asks
 * {@link #accepts}, and if so hands the request here. Netty's {@code HttpServerUpgradeHandler} does the
 * switch (101, the HTTP/2 handlers, the request as stream 1), fed the one request and given a response
 * encoder just for the 101, since our HTTP/1.1 server writes its own bytes. Requests with a body are
 * not upgraded (served as HTTP/1.1, which RFC 7540 allows): no body is buffered for an upgrade.
 */
public final class H2cUpgrade {
    private static final String ENCODER = "h2c-101";
    private static final String UPGRADE = "h2c-upgrade";
    private final Http2Connections h2;

    public H2cUpgrade(Http2Connections h2) {
        this.h2 = h2;
    }

    /** Whether the request asks for h2c properly (Upgrade, Connection and one good HTTP2-Settings). */
    public static boolean accepts(HttpRequest req, boolean hasBody) {
        HttpHeaders h = req.headers();
        if (hasBody || !req.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            return false;
        }
        String upgrade = h.get(HttpHeaderNames.UPGRADE);
        if (upgrade == null || !tokens(upgrade).contains("h2c")) {
            return false;
        }
        List<String> connection = tokens(String.join(",", h.getAll(HttpHeaderNames.CONNECTION)));
        if (!connection.contains("upgrade") || !connection.contains("http2-settings")) {
            return false;
        }
        List<String> settings = h.getAll(Http2CodecUtil.HTTP_UPGRADE_SETTINGS_HEADER);
        if (settings.size() != 1) {
            return false;
        }
        try {
            byte[] payload = Base64.getUrlDecoder().decode(settings.get(0).trim().replace("=", ""));
            return payload.length % 6 == 0; // SETTINGS entries are 6 bytes each
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<String> tokens(String value) {
        return java.util.Arrays.stream(value.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).toList();
    }

    /** Switches the connection; the HTTP/1.1 handlers (after {@code http1}) must leave right after. */
    public void upgrade(ChannelHandlerContext http1, HttpRequest req) {
        ChannelPipeline p = http1.pipeline();
        p.addAfter(http1.name(), ENCODER, new HttpResponseEncoder());
        HttpServerUpgradeHandler.SourceCodec source = new HttpServerUpgradeHandler.SourceCodec() {
            @Override
            public void upgradeFrom(ChannelHandlerContext ctx) {
                p.remove(ENCODER); // the 101 is written: no more HTTP/1.1 responses
                // Before the codec, which Http2ServerUpgradeCodec puts right after the upgrade handler.
                p.addBefore(UPGRADE, "h2-linger", h2.lingeringClose());
                p.addBefore(UPGRADE, "h2-frames", h2.frameTimeout());
            }
        };
        p.addAfter(ENCODER, UPGRADE, new HttpServerUpgradeHandler(source,
                protocol -> AsciiString.contentEqualsIgnoreCase(protocol, Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME)
                        ? new Http2ServerUpgradeCodec("h2", h2.handler(), h2.guard()) : null, 0));
        // As a head and an empty last part: the upgrade handler aggregates, and passes whole requests by.
        ChannelHandlerContext encoder = p.context(ENCODER);
        encoder.fireChannelRead(new DefaultHttpRequest(req.protocolVersion(), req.method(), req.uri(), req.headers().copy()));
        encoder.fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT);
    }
}
