package dev.strait.proxy.http;

import dev.strait.model.Config;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The client a request came from (ADR 0059): its connection's peer, unless that peer is one the config
 * trusts ({@code forwardedHeaders.trustedPeers}, a load balancer in front of us) and it says, in
 * {@code X-Forwarded-For}, whom it had the request from. Then the client is the right-most address of that
 * list that is not itself a trusted peer (nginx's {@code real_ip_recursive on}): addresses to the right
 * were appended by proxies we trust, the first one they did not append themselves is the one they saw
 * connect; anything further left came from the client and proves nothing.
 *
 * <p>The access log's {@code remote}, FastCGI's {@code REMOTE_ADDR} and hashing on the client's address use
 * it. What goes upstream in {@code X-Forwarded-For} does not change: the list as it came, and the peer.
 */
public final class ForwardedFor {
    public static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");

    private ForwardedFor() {}

    /**
     * @return {@code peer}, or, from a trusted peer, the client its {@code X-Forwarded-For} names, with port 0
     *         (the list has none); an entry that is not an address (an obfuscated {@code unknown}, garbage) ends
     *         the walk at the trusted hop to its right, which is the furthest one we can vouch for
     */
    public static SocketAddress client(HttpHeaders headers, SocketAddress peer, Config.ForwardedHeaders trust) {
        if (trust.trustedPeers().isEmpty() || !(peer instanceof InetSocketAddress p) || p.getAddress() == null
                || !trust.trusts(p.getAddress())) {
            return peer;
        }
        List<String> lines = headers.getAll(X_FORWARDED_FOR);
        SocketAddress client = peer;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (end >= 0) { // entries right to left; end is where the next one ends
                int comma = line.lastIndexOf(',', end - 1);
                String entry = line.substring(comma + 1, end).trim();
                end = comma;
                if (entry.isEmpty()) {
                    continue; // "a, , b" and a trailing comma: nothing was said there
                }
                InetAddress a = address(entry);
                if (a == null) {
                    return client;
                }
                client = new InetSocketAddress(a, 0);
                if (!trust.trusts(a)) {
                    return client;
                }
            }
        }
        return client;
    }

    /**
     * An entry's address: {@code 192.0.2.7}, {@code 2001:db8::1}, or with a port as some balancers write it
     * ({@code 192.0.2.7:4711}, {@code [2001:db8::1]:4711}); {@code null} for anything else. Never a name
     * lookup.
     */
    static InetAddress address(String entry) {
        String ip = entry;
        if (ip.startsWith("[")) {
            int close = ip.indexOf(']');
            if (close < 0 || (close + 1 < ip.length() && ip.charAt(close + 1) != ':')) {
                return null;
            }
            ip = ip.substring(1, close);
        } else if (ip.indexOf(':') == ip.lastIndexOf(':') && ip.indexOf(':') > 0) {
            ip = ip.substring(0, ip.indexOf(':')); // IPv4 with a port; a bare IPv6 address has two or more
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(ip);
        if (bytes == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null; // not reached: the length is 4 or 16
        }
    }
}
