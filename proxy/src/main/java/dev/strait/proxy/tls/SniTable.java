package dev.strait.proxy.tls;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A TLS listener's certificates by server name, built once per snapshot: the exact name, then the
 * wildcard for the name's parent domain, then the default (the first configured certificate). Two
 * hash lookups at most, however many certificates there are. When two certificates claim a name,
 * the one listed first keeps it.
 */
public final class SniTable {
    private final Map<String, ServerCertificate> exact;
    private final Map<String, ServerCertificate> wildcard;
    private final ServerCertificate fallback;
    private final List<ServerCertificate> all;

    SniTable(List<ServerCertificate> certificates) {
        this.all = List.copyOf(certificates);
        this.fallback = all.get(0);
        Map<String, ServerCertificate> e = new HashMap<>();
        Map<String, ServerCertificate> w = new HashMap<>();
        for (ServerCertificate c : all) {
            c.exactNames().forEach(n -> e.putIfAbsent(n, c));
            c.wildcardSuffixes().forEach(n -> w.putIfAbsent(n, c));
        }
        this.exact = e;
        this.wildcard = w;
    }

    /** The certificate for a client's SNI name ({@code null}: none sent). */
    public ServerCertificate select(String serverName) {
        if (serverName == null || serverName.isEmpty()) {
            return fallback;
        }
        String host = ServerCertificate.normalize(serverName);
        ServerCertificate c = exact.get(host);
        if (c != null) {
            return c;
        }
        int dot = host.indexOf('.');
        if (dot > 0) {
            c = wildcard.get(host.substring(dot + 1));
            if (c != null) {
                return c;
            }
        }
        return fallback;
    }

    public ServerCertificate defaultCertificate() {
        return fallback;
    }

    List<ServerCertificate> certificates() {
        return all;
    }
}
