package dev.strait.proxy.tls;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A TLS listener's certificates by server name, built once per snapshot: the exact name, then the
 * wildcard for the name's parent domain, then the default (the first configured certificate). Two
 * hash lookups at most, however many certificates there are. When two certificates claim a name,
 * the one listed first keeps it, the default last: it keeps only the names no other claims. The client-certificate policies (ADR 0075) are found the same way, with
 * {@code *} for every other name.
 */
public final class SniTable {
    private final Map<String, ServerCertificate> exact;
    private final Map<String, ServerCertificate> wildcard;
    private final ServerCertificate fallback;
    private final List<ServerCertificate> all;
    private final Map<String, ClientValidationPolicy> exactPolicies;
    private final Map<String, ClientValidationPolicy> wildcardPolicies;
    private final ClientValidationPolicy anyPolicy;

    /** Hosts whose connections are passed through (routes' {@code tlsPassthrough}): exact names, wildcard suffixes. */
    private final Map<String, Passthrough> exactPassthrough;
    private final Map<String, Passthrough> wildcardPassthrough;

    /**
     * A passed-through host's route, the upstream its connections go to, and the PROXY protocol version of the
     * header sent ahead of them (0: none).
     */
    public record Passthrough(String route, String upstream, int proxyProtocol) {}

    SniTable(List<ServerCertificate> certificates) {
        this(certificates, Map.of(), Map.of());
    }

    /**
     * @param policies    the client-certificate policy of each host a {@code clientValidation} entry names
     * @param passthrough the hosts (names and {@code *.domain} wildcards) whose TLS this listener passes through
     */
    SniTable(List<ServerCertificate> certificates, Map<String, ClientValidationPolicy> policies,
             Map<String, Passthrough> passthrough) {
        Map<String, Passthrough> te = new HashMap<>();
        Map<String, Passthrough> tw = new HashMap<>();
        passthrough.forEach((h, p) -> (h.startsWith("*.") ? tw : te).put(h.startsWith("*.") ? h.substring(2) : h, p));
        this.exactPassthrough = te;
        this.wildcardPassthrough = tw;
        this.all = List.copyOf(certificates);
        this.fallback = all.isEmpty() ? null : all.get(0); // none: a listener that only passes TLS through
        Map<String, ServerCertificate> e = new HashMap<>();
        Map<String, ServerCertificate> w = new HashMap<>();
        // The default last: it answers the names no other certificate claims (the operator's default certificate,
        // a wildcard for the whole controller, never takes a name from a host's own certificate).
        for (int i = 1; i <= all.size(); i++) {
            ServerCertificate c = all.get(i % all.size());
            c.exactNames().forEach(n -> e.putIfAbsent(n, c));
            c.wildcardSuffixes().forEach(n -> w.putIfAbsent(n, c));
        }
        this.exact = e;
        this.wildcard = w;
        Map<String, ClientValidationPolicy> pe = new HashMap<>();
        Map<String, ClientValidationPolicy> pw = new HashMap<>();
        ClientValidationPolicy any = null;
        for (Map.Entry<String, ClientValidationPolicy> p : policies.entrySet()) {
            String h = p.getKey();
            if (h.equals("*")) {
                any = p.getValue();
            } else if (h.startsWith("*.")) {
                pw.put(h.substring(2), p.getValue());
            } else {
                pe.put(h, p.getValue());
            }
        }
        this.exactPolicies = pe;
        this.wildcardPolicies = pw;
        this.anyPolicy = any;
    }

    /**
     * The certificate for a client's SNI name ({@code null}: none sent); {@code null} on a listener without
     * certificates, which only passes TLS through.
     */
    public ServerCertificate select(String serverName) {
        if (serverName == null || serverName.isEmpty()) {
            return fallback;
        }
        return byName(exact, wildcard, fallback, ServerCertificate.normalize(serverName));
    }

    /** The exact name's value, else its parent domain's wildcard's, else {@code fallback}. */
    private static <T> T byName(Map<String, T> exact, Map<String, T> wildcard, T fallback, String host) {
        T c = exact.get(host);
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

    /**
     * The client-certificate policy for a (lower-case, port-less) host or SNI name, or {@code null}. Without SNI a
     * handshake cannot know the host, so it asks under {@code *}'s policy only.
     */
    public ClientValidationPolicy policyFor(String host) {
        if (anyPolicy == null && exactPolicies.isEmpty() && wildcardPolicies.isEmpty()) {
            return null;
        }
        if (host == null || host.isEmpty()) {
            return anyPolicy;
        }
        return byName(exactPolicies, wildcardPolicies, anyPolicy, host);
    }

    /**
     * Where a connection whose ClientHello names {@code serverName} is passed through, or {@code null} when this
     * listener ends its TLS. As routes' hosts match: the exact name, then the longest wildcard ({@code
     * *.example.com} covers {@code a.b.example.com} too). Without SNI nothing is passed through.
     */
    public Passthrough passthrough(String serverName) {
        if (serverName == null || serverName.isEmpty()
                || (exactPassthrough.isEmpty() && wildcardPassthrough.isEmpty())) {
            return null;
        }
        String host = ServerCertificate.normalize(serverName);
        Passthrough p = exactPassthrough.get(host);
        for (int dot = host.indexOf('.'); p == null && dot > 0; dot = host.indexOf('.', dot + 1)) {
            p = wildcardPassthrough.get(host.substring(dot + 1));
        }
        return p;
    }

    /** Whether this listener passes any host's TLS through. */
    public boolean passesThrough() {
        return !exactPassthrough.isEmpty() || !wildcardPassthrough.isEmpty();
    }

    /** Whether any host of this listener asks for client certificates. */
    boolean validatesClients() {
        return anyPolicy != null || !exactPolicies.isEmpty() || !wildcardPolicies.isEmpty();
    }

    public ServerCertificate defaultCertificate() {
        return fallback;
    }

    List<ServerCertificate> certificates() {
        return all;
    }
}
