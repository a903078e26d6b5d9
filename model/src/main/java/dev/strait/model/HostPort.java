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
        return new HostPort(host, p);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
