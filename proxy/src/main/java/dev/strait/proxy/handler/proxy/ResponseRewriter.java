package dev.strait.proxy.handler.proxy;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.List;

/**
 * A rule's {@code responseRewrite}, ready to apply to the fields of an upstream's answer before they go to the
 * client (nginx's {@code proxy_redirect}, {@code proxy_cookie_path}, {@code proxy_cookie_domain}): the start of
 * {@code Location} and of {@code Refresh}'s URL, and each {@code Set-Cookie}'s {@code Path} and {@code Domain}.
 * In each list the first entry that matches applies. Answers without those fields cost a lookup or two.
 */
final class ResponseRewriter {
    private static final AsciiString REFRESH = AsciiString.cached("refresh");

    /** One replacement; {@code to} is expanded per request only when it names {@code {host}} or {@code {scheme}}. */
    private record Replace(String from, String to, boolean expands) {
        static Replace of(Route.Replace r, boolean domain) {
            String from = domain && r.from().startsWith(".") ? r.from().substring(1) : r.from();
            return new Replace(from, r.to(), r.to().contains("{host}") || r.to().contains("{scheme}"));
        }

        String to(Exchange ex) {
            return expands ? to.replace("{host}", ex.host()).replace("{scheme}", ex.scheme()) : to;
        }
    }

    private final Replace[] location;
    private final Replace[] cookiePath;
    private final Replace[] cookieDomain;

    private ResponseRewriter(Route.ResponseRewrite r) {
        location = replaces(r.location(), false);
        cookiePath = replaces(r.cookiePath(), false);
        cookieDomain = replaces(r.cookieDomain(), true);
    }

    /** The rewriter of {@code r}, or null without one. */
    static ResponseRewriter of(Route.ResponseRewrite r) {
        return r == null ? null : new ResponseRewriter(r);
    }

    private static Replace[] replaces(List<Route.Replace> list, boolean domain) {
        return list.stream().map(r -> Replace.of(r, domain)).toArray(Replace[]::new);
    }

    /** Rewrites {@code h}, the fields of an upstream's answer to {@code ex}, in place. */
    void apply(Exchange ex, HttpHeaders h) {
        if (location.length > 0) {
            String loc = h.get(HttpHeaderNames.LOCATION);
            if (loc != null) {
                String to = prefixed(loc, 0, location, ex);
                if (to != null) {
                    h.set(HttpHeaderNames.LOCATION, to);
                }
            }
            String refresh = h.get(REFRESH);
            if (refresh != null) {
                String to = refresh(refresh, ex);
                if (to != null) {
                    h.set(REFRESH, to);
                }
            }
        }
        if ((cookiePath.length > 0 || cookieDomain.length > 0) && h.contains(HttpHeaderNames.SET_COOKIE)) {
            List<String> cookies = new java.util.ArrayList<>(h.getAll(HttpHeaderNames.SET_COOKIE));
            boolean changed = false;
            for (int i = 0; i < cookies.size(); i++) {
                String to = cookie(cookies.get(i), ex);
                if (to != null) {
                    cookies.set(i, to);
                    changed = true;
                }
            }
            if (changed) {
                h.set(HttpHeaderNames.SET_COOKIE, cookies);
            }
        }
    }

    /** {@code value} with the text from {@code at} rewritten by the first entry it starts with, or null. */
    private static String prefixed(String value, int at, Replace[] list, Exchange ex) {
        for (Replace r : list) {
            if (value.startsWith(r.from, at)) {
                return value.substring(0, at) + r.to(ex) + value.substring(at + r.from.length());
            }
        }
        return null;
    }

    /** {@code Refresh: 5; url=http://...}: the URL after {@code url=} (any case, quoted or not), or null. */
    private String refresh(String value, Exchange ex) {
        int url = indexOfIgnoreCase(value, "url=");
        if (url < 0) {
            return null;
        }
        int at = url + 4;
        if (at < value.length() && (value.charAt(at) == '\'' || value.charAt(at) == '"')) {
            at++;
        }
        return prefixed(value, at, location, ex);
    }

    /** One {@code Set-Cookie} value with its {@code Path} and {@code Domain} rewritten, or null when unchanged. */
    private String cookie(String value, Exchange ex) {
        StringBuilder out = null;
        int start = value.indexOf(';'); // the first part is the cookie itself
        while (start >= 0) {
            int end = value.indexOf(';', start + 1);
            int stop = end < 0 ? value.length() : end;
            int eq = value.indexOf('=', start + 1);
            if (eq > 0 && eq < stop) {
                String name = value.substring(start + 1, eq).trim();
                String attr = value.substring(eq + 1, stop).trim();
                String to = null;
                if (name.equalsIgnoreCase("path")) {
                    to = prefixed(attr, 0, cookiePath, ex);
                } else if (name.equalsIgnoreCase("domain")) {
                    to = domain(attr, ex);
                }
                if (to != null) {
                    if (out == null) {
                        out = new StringBuilder(value.length() + 16).append(value, 0, start);
                    }
                    out.append(value, start, eq + 1).append(to);
                    start = end;
                    continue;
                }
            }
            if (out != null) {
                out.append(value, start, stop);
            }
            start = end;
        }
        return out == null ? null : out.toString();
    }

    private String domain(String value, Exchange ex) {
        String bare = value.startsWith(".") ? value.substring(1) : value;
        for (Replace r : cookieDomain) {
            if (bare.equalsIgnoreCase(r.from)) {
                return r.to(ex);
            }
        }
        return null;
    }

    private static int indexOfIgnoreCase(String s, String what) {
        for (int i = 0; i + what.length() <= s.length(); i++) {
            if (s.regionMatches(true, i, what, 0, what.length())) {
                return i;
            }
        }
        return -1;
    }
}
