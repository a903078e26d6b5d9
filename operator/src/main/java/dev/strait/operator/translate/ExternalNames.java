package dev.strait.operator.translate;

import dev.strait.model.IpBlock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * What an ExternalName Service's {@code externalName} may be: a DNS name outside the cluster, an IP address that is
 * not the proxy's own host or the node's, or the name of a Service of the cluster ({@link ClusterDns}, followed as
 * a reference). The proxy refuses the same addresses when a name resolves to one (its
 * {@code NameResolution.isLocal}); this says so at once, in the referring resource's status, for what the name
 * itself shows. Nothing here ever looks a name up.
 */
final class ExternalNames {
    /** RFC 1123 labels, lower-case, as the API server checks {@code externalName}. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final String WHY = "an ExternalName Service may not lead to the proxy's own host or the node's:"
            + " loopback, link-local (the cloud metadata service at 169.254.169.254), unspecified and multicast"
            + " addresses are refused";

    private ExternalNames() {}

    /**
     * Why {@code host} (lower-case, without a trailing dot) cannot be an ExternalName Service's endpoint, worded to
     * follow the Service's name; null when it can (a name or address outside the cluster, or a Service's name in the
     * cluster domain {@code domain}).
     */
    static String problem(String host, String domain) {
        if (host.equals("localhost") || host.endsWith(".localhost")) {
            return "names the proxy's own host (RFC 6761); " + WHY;
        }
        String last = host.substring(host.lastIndexOf('.') + 1);
        boolean numeric = !last.isEmpty() && last.chars().allMatch(c -> c >= '0' && c <= '9');
        if (host.indexOf(':') >= 0 || numeric) {
            InetAddress a = literal(host);
            if (a == null) {
                // glibc reads 127.1, 2130706433 and 0177.0.0.1 as 127.0.0.1; Java reads 0177 as 177
                return "is neither a DNS name nor an IP address written in full (four numbers 0..255 without leading"
                        + " zeros, or IPv6): a resolver may read such a form as another address";
            }
            String kind = a.isLoopbackAddress() ? "a loopback" : a.isLinkLocalAddress() ? "a link-local"
                    : a.isAnyLocalAddress() ? "the unspecified" : a.isMulticastAddress() ? "a multicast" : null;
            return kind == null ? null : "is " + kind + " address; " + WHY;
        }
        if (host.length() > 253 || !NAME.matcher(host).matches()) {
            return "is neither a DNS name nor an IP address";
        }
        if (host.indexOf('.') < 0) {
            return "is a single label, which the proxy's resolver would complete with its pod's search domains (a"
                    + " Service of the proxy's own namespace); write the whole name";
        }
        if (ClusterDns.service(host, domain) == null && ClusterDns.internal(host, domain)) {
            return "is a name of the cluster's DNS that names no Service as NAME.NAMESPACE.svc or NAME.NAMESPACE.svc."
                    + domain + " do (a pod, or another cluster domain): it would reach into the cluster"
                    + " without the consent of what it names";
        }
        return null;
    }

    /** {@code host} as an address when it is an IPv4 address written in full or an IPv6 address; else null. */
    private static InetAddress literal(String host) {
        if (host.indexOf('/') >= 0 || host.indexOf('%') >= 0) {
            return null; // a block, or an IPv6 zone
        }
        if (host.indexOf(':') < 0) {
            for (String part : host.split("\\.", -1)) {
                if (part.length() > 1 && part.charAt(0) == '0') {
                    return null; // octal to some resolvers
                }
            }
        }
        IpBlock b;
        try {
            b = IpBlock.parse(host);
        } catch (IllegalArgumentException e) {
            return null;
        }
        // The address's bytes, so that the JDK never looks anything up. An IPv4-mapped IPv6 address is IPv4 here.
        byte[] bytes = new byte[b.v6() ? 16 : 4];
        for (int i = 0; i < bytes.length; i++) {
            long word = b.v6() && i < 8 ? b.high() : b.low();
            bytes[i] = (byte) (word >>> 8 * (b.v6() ? 7 - i % 8 : 3 - i));
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // not reached: 4 or 16 bytes
        }
    }
}
