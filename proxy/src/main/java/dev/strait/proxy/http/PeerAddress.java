package dev.strait.proxy.http;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.SocketAddress;

/**
 * Who is at the other end of a client connection: the socket's peer, or, on a listener with {@code proxyProtocol},
 * the source address its PROXY protocol header named (set by {@code server/ProxyProtocolReader} before any other
 * handler reads it). Everything that takes "the connection's peer" asks here: {@code X-Forwarded-For}, the
 * trusted-peer checks, the guards, the access log, hashing.
 */
public final class PeerAddress {
    public static final AttributeKey<SocketAddress> KEY = AttributeKey.valueOf("strait.peer");

    private PeerAddress() {}

    public static SocketAddress of(Channel ch) {
        SocketAddress proxied = ch.attr(KEY).get();
        return proxied != null ? proxied : ch.remoteAddress();
    }
}
