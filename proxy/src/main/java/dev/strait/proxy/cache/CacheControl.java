package dev.strait.proxy.cache;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;

/**
 * The response directives of {@code Cache-Control} a shared cache acts on (RFC 9111 5.2.2, RFC 5861).
 * Seconds are {@code -1} when absent. Unknown directives are ignored (RFC 9111 5.2.3); a directive
 * written twice or with a bad argument counts in the safer way: {@code max-age=abc} is stale at once
 * (RFC 9111 4.2.1 says treat an invalid freshness as stale), {@code private="x"} is {@code private}.
 */
record CacheControl(long maxAge, long sMaxAge, boolean noStore, boolean noCache, boolean isPrivate,
                    boolean isPublic, boolean mustRevalidate, boolean proxyRevalidate,
                    long staleWhileRevalidate, long staleIfError) {

    static final CacheControl NONE = new CacheControl(-1, -1, false, false, false, false, false, false, -1, -1);

    /** Parses every {@code Cache-Control} field of {@code headers} as one list (RFC 9110 5.3). */
    static CacheControl of(HttpHeaders headers) {
        List<String> values = headers.getAll(HttpHeaderNames.CACHE_CONTROL);
        if (values.isEmpty()) {
            return NONE;
        }
        return parse(values.size() == 1 ? values.get(0) : String.join(",", values));
    }

    static CacheControl parse(String value) {
        long maxAge = -1;
        long sMaxAge = -1;
        long swr = -1;
        long sie = -1;
        boolean noStore = false;
        boolean noCache = false;
        boolean priv = false;
        boolean pub = false;
        boolean mustRevalidate = false;
        boolean proxyRevalidate = false;
        int i = 0;
        int n = value.length();
        while (i < n) {
            // one directive: token [ "=" ( token / quoted-string ) ]
            while (i < n && (value.charAt(i) == ',' || value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
                i++;
            }
            int nameStart = i;
            while (i < n && value.charAt(i) != '=' && value.charAt(i) != ',' && value.charAt(i) != ' '
                    && value.charAt(i) != '\t') {
                i++;
            }
            String name = value.substring(nameStart, i).toLowerCase(java.util.Locale.ROOT);
            while (i < n && (value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
                i++;
            }
            String arg = null;
            if (i < n && value.charAt(i) == '=') {
                i++;
                while (i < n && (value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
                    i++;
                }
                if (i < n && value.charAt(i) == '"') {
                    StringBuilder sb = new StringBuilder();
                    i++;
                    while (i < n && value.charAt(i) != '"') {
                        if (value.charAt(i) == '\\' && i + 1 < n) {
                            i++;
                        }
                        sb.append(value.charAt(i++));
                    }
                    i++; // closing quote
                    arg = sb.toString();
                } else {
                    int argStart = i;
                    while (i < n && value.charAt(i) != ',') {
                        i++;
                    }
                    arg = value.substring(argStart, i).trim();
                }
            }
            while (i < n && value.charAt(i) != ',') {
                i++; // junk after a directive
            }
            if (name.isEmpty()) {
                continue;
            }
            switch (name) {
                case "max-age" -> maxAge = min(maxAge, seconds(arg));
                case "s-maxage" -> sMaxAge = min(sMaxAge, seconds(arg));
                case "stale-while-revalidate" -> swr = min(swr, seconds(arg));
                case "stale-if-error" -> sie = min(sie, seconds(arg));
                case "no-store" -> noStore = true;
                case "no-cache" -> noCache = true; // with field names too: we do not store partial validation
                case "private" -> priv = true;
                case "public" -> pub = true;
                case "must-revalidate" -> mustRevalidate = true;
                case "proxy-revalidate" -> proxyRevalidate = true;
                default -> { }
            }
        }
        return new CacheControl(maxAge, sMaxAge, noStore, noCache, priv, pub, mustRevalidate, proxyRevalidate, swr,
                sie);
    }

    /** Delta-seconds (RFC 9111 1.2.2); a bad one is 0 (stale), one too large is capped at 2^31. */
    static long seconds(String arg) {
        if (arg == null || arg.isEmpty()) {
            return 0;
        }
        long v = 0;
        for (int i = 0; i < arg.length(); i++) {
            char c = arg.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            v = v * 10 + (c - '0');
            if (v >= 2147483648L) {
                return 2147483648L;
            }
        }
        return v;
    }

    /** Two values for one directive: the smaller (the safer) wins. */
    private static long min(long current, long next) {
        return current < 0 ? next : Math.min(current, next);
    }

    /** Whether a stale response may be served at all (RFC 9111 5.2.2.2, 5.2.2.8; s-maxage implies it). */
    boolean revalidateWhenStale() {
        return mustRevalidate || proxyRevalidate || sMaxAge >= 0;
    }
}
