package dev.strait.proxy.jwt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.model.Jwks;
import dev.strait.model.Route;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A rule's {@code jwtAuth} (ADR 0108), compiled with the table: finds the request's token, checks it against the
 * keys (inline, or fetched by {@link RemoteJwks}), and sets the claims' fields for the upstream. Tokens once found
 * valid are remembered until they expire (by their SHA-256, never as sent), so a client's later requests cost a
 * hash, not a signature check.
 */
public final class JwtGuard {
    /** Tokens remembered; past it the memory starts again. */
    private static final int REMEMBERED = 1024;

    /** What the request comes to. */
    public sealed interface Outcome permits Admit, Challenge, Refuse, Forbid, Unavailable, Wait {}

    /** Let through; the claims' fields are set on the request. */
    public record Admit() implements Outcome {}

    /** No token: 401 with the challenge alone (RFC 6750 3: no error code when none was sent). */
    public record Challenge(String wwwAuthenticate) implements Outcome {}

    /** A token that is refused: 401 with {@code invalid_token} and why. */
    public record Refuse(String wwwAuthenticate, String why) implements Outcome {}

    /** A valid token without what the rule requires of its claims: 403 with {@code insufficient_scope}. */
    public record Forbid(String wwwAuthenticate, String why) implements Outcome {}

    /** The keys could not be fetched: 503, nobody's token can be checked. */
    public record Unavailable() implements Outcome {}

    /** The keys are being fetched: ask again when {@code keys} completes, on the request's loop. */
    public record Wait(CompletableFuture<?> keys) implements Outcome {}

    private static final Admit ADMIT = new Admit();
    private static final Unavailable UNAVAILABLE = new Unavailable();

    private final Route.JwtAuth spec;
    /** The inline keys, or null when they come from {@link #remote}. */
    private final List<Jwks.Key> inline;
    private final RemoteJwks remote;
    private final String challenge;
    /** Valid tokens by their hash: until when, and the fields their claims set. */
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

    private record Remembered(long exp, List<String[]> fields) {}

    private JwtGuard(Route.JwtAuth spec, List<Jwks.Key> inline, RemoteJwks remote) {
        this.spec = spec;
        this.inline = inline;
        this.remote = remote;
        this.challenge = "Bearer realm=\"" + spec.realm() + "\"";
    }

    /** @throws IllegalArgumentException when the inline keys cannot be read (the parser refuses such configs first) */
    public static JwtGuard of(Route.JwtAuth spec) {
        if (spec.jwks() != null) {
            try {
                return new JwtGuard(spec, Jwks.parse(spec.jwks()).keys(), null);
            } catch (Jwks.Invalid e) {
                throw new IllegalArgumentException("jwtAuth.jwks: " + e.getMessage(), e);
            }
        }
        return new JwtGuard(spec, null, spec.discovers() ? RemoteJwks.discovered(spec.issuer(), spec.refresh())
                : RemoteJwks.of(spec.jwksUri(), spec.refresh()));
    }

    /**
     * Checks the request's token; on {@link Admit} its claims' fields are set on {@code headers}. Whatever comes, the
     * client's own copies of those fields are removed first: a client must not be able to claim to be someone.
     */
    public Outcome check(HttpHeaders headers) {
        for (Route.ClaimHeader c : spec.claimHeaders()) {
            headers.remove(c.header());
        }
        String token = token(headers);
        if (token == null) {
            return spec.optional() ? ADMIT : new Challenge(challenge);
        }
        long now = System.currentTimeMillis() / 1000;
        String hash = hash(token);
        Remembered r = remembered.get(hash);
        if (r != null && now < r.exp() + JwtVerifier.SKEW_SECONDS) {
            r.fields().forEach(f -> headers.set(f[0], f[1]));
            return ADMIT;
        }
        List<Jwks.Key> keys = inline != null ? inline : remote.keys();
        if (keys == null) {
            return remote.failedLately() ? UNAVAILABLE : new Wait(remote.fetch());
        }
        JwtVerifier.Verdict v = JwtVerifier.verify(token, keys, spec, now);
        if (v instanceof JwtVerifier.UnknownKey && remote != null) {
            CompletableFuture<?> again = remote.fetchForUnknownKey();
            if (again != null) {
                return new Wait(again);
            }
        }
        if (v instanceof JwtVerifier.Valid valid) {
            String lacking = lacking(valid.claims());
            if (lacking != null) {
                String why = "the token holds none of the values this path requires in " + lacking;
                return new Forbid(challenge + ", error=\"insufficient_scope\", error_description=\"" + why + "\"", why);
            }
            List<String[]> fields = fields(valid.claims());
            if (remembered.size() >= REMEMBERED) {
                remembered.clear();
            }
            remembered.put(hash, new Remembered(valid.exp(), fields));
            fields.forEach(f -> headers.set(f[0], f[1]));
            return ADMIT;
        }
        String why = v instanceof JwtVerifier.Invalid i ? i.why() : "the token names a key that signs no tokens here";
        return new Refuse(challenge + ", error=\"invalid_token\", error_description=\"" + why + "\"", why);
    }

    /** After a {@link Wait} whose keys came to nothing: 503 while no keys were ever fetched. */
    public boolean keysMissing() {
        return inline == null && remote.keys() == null;
    }

    /** {@code Authorization: Bearer TOKEN} (scheme in any case, RFC 6750 2.1), else the rule's cookie, else null. */
    private String token(HttpHeaders headers) {
        String auth = headers.get(HttpHeaderNames.AUTHORIZATION);
        if (auth != null && auth.length() > 7 && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String t = auth.substring(7).trim();
            return t.isEmpty() ? null : t;
        }
        if (spec.cookie() != null) {
            for (String cookie : headers.getAll(HttpHeaderNames.COOKIE)) {
                for (String pair : cookie.split(";")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0 && pair.substring(0, eq).trim().equals(spec.cookie())) {
                        String t = pair.substring(eq + 1).trim();
                        if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
                            t = t.substring(1, t.length() - 1);
                        }
                        return t.isEmpty() ? null : t;
                    }
                }
            }
        }
        return null;
    }

    /** The first claim the rule requires that the token does not hold a listed value in (its name, for a message). */
    private String lacking(JsonNode claims) {
        for (Route.ClaimRequirement r : spec.require()) {
            JsonNode v = claim(claims, r.claim());
            boolean held = false;
            if (v != null && v.isArray()) {
                for (JsonNode e : v) {
                    held |= e.isValueNode() && r.anyOf().contains(e.asText());
                }
            } else if (v != null && v.isTextual()) {
                for (String word : v.asText().split("\\s+")) {
                    held |= r.anyOf().contains(word);
                }
            } else if (v != null && v.isValueNode() && !v.isNull()) {
                held = r.anyOf().contains(v.asText());
            }
            if (!held) {
                return r.claim().replace("\"", "").replace("\\", "");
            }
        }
        return null;
    }

    /**
     * A claim by its name, or, when the token has no claim of that very name, by the names of members down into
     * objects joined by dots ({@code realm_access.roles}): a namespaced claim such as {@code https://example.com/roles}
     * is found as it is.
     */
    private static JsonNode claim(JsonNode claims, String name) {
        if (claims.has(name)) {
            return claims.get(name);
        }
        JsonNode v = claims;
        for (String part : name.split("\\.")) {
            v = v == null || !v.isObject() ? null : v.get(part);
        }
        return v;
    }

    /** The fields the rule sets from claims: text as it is, numbers and booleans as JSON writes them, lists joined. */
    private List<String[]> fields(JsonNode claims) {
        List<String[]> out = new ArrayList<>(spec.claimHeaders().size());
        for (Route.ClaimHeader c : spec.claimHeaders()) {
            JsonNode v = claim(claims, c.claim());
            String value = value(v);
            if (value != null) {
                out.add(new String[] {c.header(), value});
            }
        }
        return List.copyOf(out);
    }

    private static String value(JsonNode v) {
        if (v == null || v.isNull() || v.isObject()) {
            return null;
        }
        String s;
        if (v.isArray()) {
            List<String> parts = new ArrayList<>();
            for (JsonNode e : v) {
                if (e.isValueNode() && !e.isNull()) {
                    parts.add(e.asText());
                }
            }
            s = String.join(",", parts);
        } else {
            s = v.asText();
        }
        // Sent as visible ASCII only: a claim with control characters (RFC 9110 5.5) or beyond ASCII is not sent.
        return s.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch >= 0x7f) ? null : s;
    }

    private static String hash(String token) {
        try {
            return Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
