package dev.strait.proxy.http;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * The name of the listener a client connection was accepted on, set by {@code server/ProxyServer} when
 * the connection is set up and read once by the HTTP/1.1 and HTTP/2 server sides, which route its
 * requests with that listener's table ({@code config/Snapshot#table(String)}).
 */
public final class AcceptedOn {
    public static final AttributeKey<String> KEY = AttributeKey.valueOf("strait.listener");

    private AcceptedOn() {}

    /** The listener's name, or {@code null} for a connection no listener accepted (tests). */
    public static String listener(Channel ch) {
        return ch.attr(KEY).get();
    }
}
