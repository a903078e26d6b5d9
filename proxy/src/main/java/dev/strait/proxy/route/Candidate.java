package dev.strait.proxy.route;

import dev.strait.model.Route;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Iterator;
import java.util.regex.Pattern;

/** One match of one rule, compiled: the conditions besides the path that must hold too. */
final class Candidate {
    final Route.PathType pathType;
    final String pathValue;
    final String method;
    final String[] headerNames;
    final String[] headerValues;
    /** Per header condition, its compiled regular expression, or null for an exact one; null when none has one. */
    final Pattern[] headerPatterns;
    final Pattern regex;
    final CompiledRule rule;
    final int order;
    /** The path's {@code priority}: orders a host's regex paths before {@link #order} does. */
    final int priority;

    Candidate(Route.PathType pathType, String pathValue, String method, String[] headerNames,
              String[] headerValues, Pattern[] headerPatterns, Pattern regex, CompiledRule rule, int order,
              int priority) {
        this.pathType = pathType;
        this.pathValue = pathValue;
        this.method = method;
        this.headerNames = headerNames;
        this.headerValues = headerValues;
        this.headerPatterns = headerPatterns;
        this.regex = regex;
        this.rule = rule;
        this.order = order;
        this.priority = priority;
    }

    /** Marks a condition in {@link #headerNames} as a cookie's, by the cookie's name after it. */
    static final char COOKIE = '\0';

    boolean accepts(HttpMethod m, HttpHeaders headers) {
        if (method != null && !method.equals(m.name())
                && !(method.equals("GET") && m == HttpMethod.HEAD)) {
            return false;
        }
        for (int i = 0; i < headerNames.length; i++) {
            String name = headerNames[i];
            String value = name.charAt(0) == COOKIE ? cookie(headers, name) : combined(headers, name);
            Pattern p = headerPatterns == null ? null : headerPatterns[i];
            if (p == null ? !headerValues[i].equals(value) : value == null || !p.matcher(value).matches()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The value of the cookie named after the marker in {@code marked}, or null when it is absent or sent
     * twice (which one a client meant is not ours to guess, so neither matches).
     */
    static String cookie(HttpHeaders headers, String marked) {
        String all = combined(headers, "cookie");
        if (all == null) {
            return null;
        }
        String found = null;
        int n = marked.length() - 1;
        for (int at = 0; at < all.length(); ) {
            int end = all.indexOf(';', at);
            if (end < 0) {
                end = all.length();
            }
            int s = at;
            while (s < end && all.charAt(s) == ' ') {
                s++;
            }
            if (end - s > n && all.charAt(s + n) == '=' && all.regionMatches(s, marked, 1, n)) {
                if (found != null) {
                    return null;
                }
                found = all.substring(s + n + 1, end).trim();
            }
            at = end + 1;
        }
        return found;
    }

    /**
     * A repeated field is matched as one value, its lines joined by a comma (RFC 9110 5.3; Envoy does
     * the same), so a client cannot pass a condition by sending the expected line first and another
     * after it. Cookies join with "; ", as HTTP/2's cookie crumbs are put back together (RFC 9113 8.2.3).
     */
    static String combined(HttpHeaders headers, String name) {
        Iterator<String> it = headers.valueStringIterator(name);
        if (!it.hasNext()) {
            return null;
        }
        String first = it.next();
        if (!it.hasNext()) {
            return first;
        }
        // Netty's value iterator runs newest first; getAll keeps the order the lines came in.
        return String.join(name.equalsIgnoreCase("cookie") ? "; " : ",", headers.getAll(name));
    }

    /** Gateway API precedence among equal paths: a method match first, then more header matches. */
    int specificity() {
        return (method != null ? 1000 : 0) + headerNames.length;
    }
}
