package dev.strait.model;

/**
 * A {@code host:port} pair as written in config; IPv6 hosts are written in brackets. An upstream's endpoint
 * may be a unix socket instead, written as nginx writes it ({@code unix:/run/php/php-fpm.sock}, Debian's
 * php-fpm default; {@code unix:/run/app.sock}): its absolute path is the host and its port 0
 * ({@link #isUnixSocket}).
 */
public record HostPort(String host, int port) {
    /** What a unix socket's path is written after. */
    public static final String UNIX = "unix:";
    /** The longest path a unix socket address holds: sun_path's 108 bytes, less the terminating NUL. */
    public static final int MAX_UNIX_PATH_BYTES = 107;

    /**
     * Parses an upstream endpoint: {@code host:port}, {@code [v6]:port}, or {@code unix:/absolute/path}.
     *
     * @throws IllegalArgumentException with a message fit to follow a field path
     */
    public static HostPort parseEndpoint(String text) {
        if (text == null || !text.startsWith(UNIX)) {
            return parse(text);
        }
        String path = text.substring(UNIX.length());
        if (!path.startsWith("/") || path.endsWith("/")) {
            throw new IllegalArgumentException("a unix socket is an absolute file path (unix:/run/app.sock), got \""
                    + text + "\"");
        }
        int bytes = path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_UNIX_PATH_BYTES) {
            throw new IllegalArgumentException("a unix socket's path holds at most " + MAX_UNIX_PATH_BYTES
                    + " bytes, got " + bytes);
        }
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) < 0x20 || path.charAt(i) == 0x7f) {
                throw new IllegalArgumentException("a unix socket's path may not hold control characters");
            }
        }
        return new HostPort(path, 0);
    }

    /** Whether this is a unix socket's path ({@code unix:/...}) rather than a host and port. */
    public boolean isUnixSocket() {
        return host.startsWith("/");
    }

    /**
     * Parses {@code host:port} or {@code [v6]:port}.
     *
     * @throws IllegalArgumentException with a message fit to follow a field path
     */
    public static HostPort parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("must be host:port");
        }
        if (text.startsWith(UNIX)) {
            throw new IllegalArgumentException("must be host:port (unix sockets are for upstreams' endpoints),"
                    + " got \"" + text + "\"");
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
        if (isUnixSocket()) {
            return UNIX + host;
        }
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
