package dev.strait.proxy.jwt;

import dev.strait.model.Jwks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys an identity provider publishes at its {@code jwks_uri} (ADR 0108; given, or named by its OpenID discovery
 * document), fetched when a request first needs
 * them and again every {@code refresh}, or sooner when a token names a key the set does not hold (the provider
 * rotated its keys), at most every {@link #UNKNOWN_KEY_PAUSE}. A failed fetch keeps the keys held, so a provider
 * down for a while does not lock everyone out. One per URL and refresh, shared by the rules and snapshots that
 * name it, so a reload fetches nothing. Fetches run on a daemon thread of their own, never on an event loop.
 */
final class RemoteJwks {
    private static final Logger log = LoggerFactory.getLogger(RemoteJwks.class);
    /** A token naming a key not held makes the keys be fetched again, but not more often than this. */
    static final Duration UNKNOWN_KEY_PAUSE = Duration.ofSeconds(30);
    /**
     * After a failed fetch, the keys are not fetched again for this long: neither by requests while none are held
     * (they get 503 meanwhile) nor for a refresh, so a provider that is down is not asked at the rate of requests.
     */
    static final Duration AFTER_FAILURE = Duration.ofSeconds(2);
    /** Connecting and the answer; what a request waits at most for keys not fetched yet. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** A set larger than this is not read. */
    private static final int MAX_BYTES = 1024 * 1024;

    private static final Map<String, RemoteJwks> SHARED = new ConcurrentHashMap<>();
    private static final Executor FETCHES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "strait-jwks");
        t.setDaemon(true);
        return t;
    });
    private static volatile HttpClient client;

    /** The keys' URL, or the issuer's OpenID discovery document when {@link #issuer} is set. */
    private final URI uri;
    /** The issuer whose discovery document names the keys' URL, or null when {@link #uri} is that URL. */
    private final String issuer;
    private final Duration refresh;
    /** The keys held, or null before the first fetch that brought some. */
    private volatile List<Jwks.Key> keys;
    /** When the last fetch for an unknown key started (nanoTime). */
    private final java.util.concurrent.atomic.AtomicLong lastUnknownKey =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - Duration.ofDays(1).toNanos());
    private volatile long lastSuccess;
    /** When the last fetch failed (nanoTime), or long ago. */
    private volatile long lastFailure = System.nanoTime() - Duration.ofDays(1).toNanos();
    private final AtomicReference<CompletableFuture<List<Jwks.Key>>> fetching = new AtomicReference<>();

    private RemoteJwks(URI uri, String issuer, Duration refresh) {
        this.uri = uri;
        this.issuer = issuer;
        this.refresh = refresh;
    }

    /** The keys at {@code uri}. */
    static RemoteJwks of(String uri, Duration refresh) {
        return SHARED.computeIfAbsent(uri + " " + refresh.toMillis(), k -> new RemoteJwks(URI.create(uri), null, refresh));
    }

    /**
     * The keys at the URL {@code issuer}'s OpenID discovery document names ({@code jwks_uri}, OpenID Connect
     * Discovery 1.0 4), read again with each fetch, so a provider that moves its keys is followed.
     */
    static RemoteJwks discovered(String issuer, Duration refresh) {
        String base = issuer.endsWith("/") ? issuer.substring(0, issuer.length() - 1) : issuer;
        return SHARED.computeIfAbsent("discover " + issuer + " " + refresh.toMillis(),
                k -> new RemoteJwks(URI.create(base + "/.well-known/openid-configuration"), issuer, refresh));
    }

    /** The keys held (null: none yet); starts a fetch in the background when they are due for one. */
    List<Jwks.Key> keys() {
        List<Jwks.Key> k = keys;
        long now = System.nanoTime();
        if (k != null && now - lastSuccess > refresh.toNanos() && now - lastFailure > AFTER_FAILURE.toNanos()) {
            fetch();
        }
        return k;
    }

    /** Whether a fetch failed less than {@link #AFTER_FAILURE} ago: then none is started for a request. */
    boolean failedLately() {
        return System.nanoTime() - lastFailure < AFTER_FAILURE.toNanos();
    }

    /**
     * A fetch for a token whose key the set lacks, or null when one was made less than {@link #UNKNOWN_KEY_PAUSE}
     * ago: a client with made-up key ids must not make the proxy hammer the provider.
     */
    CompletableFuture<List<Jwks.Key>> fetchForUnknownKey() {
        long now = System.nanoTime();
        long last = lastUnknownKey.get();
        if (now - last < UNKNOWN_KEY_PAUSE.toNanos() || !lastUnknownKey.compareAndSet(last, now)) {
            return null;
        }
        return fetch();
    }

    /** The keys after a fetch (the one under way, or a new one): those held when it fails, null if none. */
    CompletableFuture<List<Jwks.Key>> fetch() {
        CompletableFuture<List<Jwks.Key>> f = fetching.get();
        if (f != null) {
            return f;
        }
        CompletableFuture<List<Jwks.Key>> mine = new CompletableFuture<>();
        if (!fetching.compareAndSet(null, mine)) {
            return fetching.get() != null ? fetching.get() : CompletableFuture.completedFuture(keys);
        }
        FETCHES.execute(() -> {
            try {
                keys = get();
                lastSuccess = System.nanoTime();
            } catch (Exception e) {
                lastFailure = System.nanoTime();
                log.warn("jwtAuth: cannot fetch the keys ({}): {}; {}", uri, e.getMessage(), keys == null
                        ? "tokens cannot be checked until they come (503)" : "the keys fetched before are kept");
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            } finally {
                fetching.set(null);
                mine.complete(keys);
            }
        });
        return mine;
    }

    private List<Jwks.Key> get() throws Exception {
        URI keysAt = issuer == null ? uri : discover();
        Jwks.Set set;
        try {
            set = Jwks.parse(body(keysAt, "application/jwk-set+json, application/json"));
        } catch (Jwks.Invalid e) {
            throw new java.io.IOException("not a usable JWK Set at " + keysAt + ": " + e.getMessage());
        }
        boolean first = keys == null;
        if (first) {
            log.info("jwtAuth: {} keys from {}{}", set.keys().size(), keysAt,
                    set.skipped().isEmpty() ? "" : " (left out: " + String.join("; ", set.skipped()) + ")");
        }
        return set.keys();
    }

    /**
     * The {@code jwks_uri} of the issuer's discovery document, which must name this very issuer (OpenID Connect
     * Discovery 1.0 4.3: else a document could send the proxy to another provider's keys).
     */
    private URI discover() throws Exception {
        com.fasterxml.jackson.databind.JsonNode doc;
        try {
            doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(body(uri, "application/json"));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new java.io.IOException("the discovery document " + uri + " is not JSON");
        }
        if (doc == null || !issuer.equals(doc.path("issuer").asText(null))) {
            throw new java.io.IOException("the discovery document " + uri + " is not the issuer's: it names "
                    + (doc == null ? "none" : doc.path("issuer").asText("none")));
        }
        String jwksUri = doc.path("jwks_uri").asText("");
        if (!dev.strait.model.ConfigParser.httpUrl(jwksUri)) {
            throw new java.io.IOException("the discovery document " + uri + " names no http(s) jwks_uri");
        }
        return URI.create(jwksUri);
    }

    private static String body(URI at, String accept) throws Exception {
        HttpResponse<byte[]> r = http().send(HttpRequest.newBuilder(at).timeout(TIMEOUT).header("Accept", accept).GET()
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new java.io.IOException(at + ": HTTP " + r.statusCode());
        }
        if (r.body().length > MAX_BYTES) {
            throw new java.io.IOException(at + ": over " + MAX_BYTES + " bytes");
        }
        return new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static HttpClient http() {
        HttpClient c = client;
        if (c == null) {
            synchronized (RemoteJwks.class) {
                if (client == null) {
                    client = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL)
                            .executor(FETCHES).build();
                }
                c = client;
            }
        }
        return c;
    }

    @Override
    public String toString() {
        return uri.toString();
    }
}
