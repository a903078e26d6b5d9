package dev.strait.proxy.passthrough;

import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The PROXY protocol header a passed-through connection's backend gets ahead of the client's bytes. */
final class ProxyProtocolHeader {
    private ProxyProtocolHeader() {}

    /**
     * A {@code PROXY} header from {@code client} to {@code local} (the listener's address it reached). When one
     * address is IPv4 and the other IPv6 (a dual-stack listener), both go as IPv6, the IPv4 one mapped
     * ({@code ::ffff:192.0.2.7}), since a header holds one family; without addresses, {@code UNKNOWN}.
     */
    static HAProxyMessage of(int version, SocketAddress client, SocketAddress local) {
        HAProxyProtocolVersion v = version == 1 ? HAProxyProtocolVersion.V1 : HAProxyProtocolVersion.V2;
        if (!(client instanceof InetSocketAddress c) || !(local instanceof InetSocketAddress l)
                || c.getAddress() == null || l.getAddress() == null) {
            return new HAProxyMessage(v, HAProxyCommand.PROXY, HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0);
        }
        boolean four = c.getAddress() instanceof Inet4Address && l.getAddress() instanceof Inet4Address;
        return new HAProxyMessage(v, HAProxyCommand.PROXY,
                four ? HAProxyProxiedProtocol.TCP4 : HAProxyProxiedProtocol.TCP6,
                text(c.getAddress(), four), text(l.getAddress(), four), c.getPort(), l.getPort());
    }

    private static String text(InetAddress a, boolean four) {
        return four || !(a instanceof Inet4Address) ? NetUtil.toAddressString(a) : "::ffff:" + a.getHostAddress();
    }
}
