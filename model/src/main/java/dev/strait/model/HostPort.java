package dev.strait.model;

/** A {@code host:port} pair as written in config; IPv6 hosts are written in brackets. */
public record HostPort(String host, int port) {

    /**
     * Parses {@code host:port} or {@code [v6]:port}.
     *
     * @throws IllegalArgumentException with a message fit to follow a field path
     */
    public static HostPort parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("must be host:port");
        }
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close <= 1 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("must be [ipv6]:port, got \"" + text + "\"");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("must be host:port, got \"" + text + "\"");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("port must be a number 0..65535, got \"" + port + "\"");
        }
        int p = Integer.parseInt(port);
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + p);
        }
        boolean v6 = text.startsWith("[");
        int zone = v6 ? host.indexOf('%') : -1; // [fe80::1%eth0]: the zone may be any interface name
        String address = zone >= 0 ? host.substring(0, zone) : host;
        for (int i = 0; i < address.length(); i++) {
            char c = address.charAt(i);
            boolean hex = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
            // A name, IPv4 or (in brackets) IPv6; brackets around a name are allowed and dropped.
            boolean ok = hex || c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '-' || c == '.' || c == '_'
                    || v6 && c == ':';
            if (!ok || zone == 0 || zone == host.length() - 1) {
                throw new IllegalArgumentException("\"" + host + "\" is not a host name or IP address");
            }
        }
        return new HostPort(host, p);
    }

    /**
     * Whether two listening addresses would take the same port: the same host, or either is a wildcard
     * ({@code 0.0.0.0} takes every IPv4 address, {@code ::} every address: sockets are dual-stack).
     */
    public boolean overlaps(HostPort other) {
        if (port != other.port || port == 0) {
            return false;
        }
        if (host.equalsIgnoreCase(other.host) || host.equals("::") || other.host.equals("::")) {
            return true;
        }
        return host.equals("0.0.0.0") && other.host.indexOf(':') < 0
                || other.host.equals("0.0.0.0") && host.indexOf(':') < 0;
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
