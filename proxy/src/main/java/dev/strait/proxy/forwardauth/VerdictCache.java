package dev.strait.proxy.forwardauth;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A rule's kept yeses (ingress-nginx's {@code auth-cache-key}): by the SHA-256 of the credentials the config names,
 * the fields the check's answer granted, until they expire. One map per event loop, read and written only on it
 * (no lock); at most {@link #MAX_PER_LOOP} each, the least recently used going first. A digest rather than the
 * credentials themselves: tokens run to kilobytes, and a sidecar's memory is every pod's.
 */
final class VerdictCache {
    static final int MAX_PER_LOOP = 4096;

    private final List<String> headers;
    private final List<String> cookies;
    private final long ttlNanos;
    private final Map<EventLoop, Loop> loops = new ConcurrentHashMap<>();

    /** What a yes granted, and until when. */
    private record Kept(long expiresAt, HttpHeaders granted) {}

    private static final class Loop {
        final MessageDigest sha256;
        final Map<String, Kept> kept = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Kept> eldest) {
                return size() > MAX_PER_LOOP;
            }
        };

        Loop() {
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    VerdictCache(Route.AuthCache config) {
        this.headers = config.headers();
        this.cookies = config.cookies();
        this.ttlNanos = config.duration().toNanos();
    }

    /** The key of a request's credentials: each named field's lines and each named cookie's value, in order. */
    String keyOf(Exchange ex) {
        Loop loop = loop(ex);
        MessageDigest d = loop.sha256;
        HttpHeaders h = ex.request().headers();
        for (String name : headers) {
            for (String v : h.getAll(name)) {
                d.update(v.getBytes(StandardCharsets.UTF_8));
                d.update((byte) '\n');
            }
            d.update((byte) 0); // "a" then "" differs from "" then "a"
        }
        for (String name : cookies) {
            for (String line : h.getAll(HttpHeaderNames.COOKIE)) {
                for (String crumb : line.split(";")) {
                    int eq = crumb.indexOf('=');
                    if (eq > 0 && crumb.substring(0, eq).trim().equals(name)) {
                        d.update(crumb.substring(eq + 1).trim().getBytes(StandardCharsets.UTF_8));
                        d.update((byte) '\n');
                    }
                }
            }
            d.update((byte) 0);
        }
        return java.util.HexFormat.of().formatHex(d.digest());
    }

    /** The fields a kept yes for {@code key} granted, or null: none, or it expired. */
    HttpHeaders granted(Exchange ex, String key) {
        Loop loop = loop(ex);
        Kept k = loop.kept.get(key);
        if (k == null) {
            return null;
        }
        if (System.nanoTime() - k.expiresAt > 0) {
            loop.kept.remove(key);
            return null;
        }
        return k.granted;
    }

    void keep(Exchange ex, String key, HttpHeaders granted) {
        loop(ex).kept.put(key, new Kept(System.nanoTime() + ttlNanos, granted));
    }

    private Loop loop(Exchange ex) {
        EventLoop l = ex.eventLoop();
        Loop loop = loops.get(l);
        return loop != null ? loop : loops.computeIfAbsent(l, x -> new Loop());
    }
}
