package dev.strait.proxy.jwt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.model.Jwks;
import dev.strait.model.Route;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Base64;
import java.util.List;

/**
 * Checks a JSON Web Token (RFC 7519) in its compact form: a JWS (RFC 7515) signed with one of a key set's keys by
 * an asymmetric algorithm of RFC 7518 or RFC 8037, current ({@code exp}, {@code nbf}, with a minute of clock skew as
 * Envoy allows), from the issuer and for an audience the rule names. {@code none} and the HMAC algorithms are
 * refused: a proxy that holds only public keys cannot be made to take a token anyone could sign.
 */
public final class JwtVerifier {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Clocks of the issuer and the proxy may differ this much (Envoy's default). */
    static final long SKEW_SECONDS = 60;
    /** A token longer than this is not read (Authorization fields are limited by the header block anyway). */
    static final int MAX_TOKEN = 16 * 1024;

    private JwtVerifier() {}

    /** What a token came to. */
    public sealed interface Verdict permits Valid, Invalid, UnknownKey {}

    /** Signed by one of the keys, current, for this rule; {@code exp} in epoch seconds ({@code Long.MAX_VALUE}: none). */
    public record Valid(JsonNode claims, long exp) implements Verdict {}

    /** Refused, with what RFC 6750's {@code error_description} says. */
    public record Invalid(String why) implements Verdict {}

    /** Names a key ({@code kid}) the set does not hold: a set fetched again may (a provider rotated its keys). */
    public record UnknownKey(String kid) implements Verdict {}

    /** Checks {@code token} against {@code keys} and the rule's {@code spec} at {@code now} (epoch seconds). */
    public static Verdict verify(String token, List<Jwks.Key> keys, Route.JwtAuth spec, long now) {
        if (token.length() > MAX_TOKEN) {
            return new Invalid("the token is too long");
        }
        int a = token.indexOf('.');
        int b = a < 0 ? -1 : token.indexOf('.', a + 1);
        if (a <= 0 || b < 0 || b == a + 1 || b == token.length() - 1 || token.indexOf('.', b + 1) >= 0) {
            return new Invalid("not a signed JWT (three parts separated by dots)");
        }
        JsonNode header;
        JsonNode claims;
        byte[] signature;
        try {
            header = JSON.readTree(decode(token, 0, a));
            claims = JSON.readTree(decode(token, a + 1, b));
            signature = Base64.getUrlDecoder().decode(token.substring(b + 1));
        } catch (IOException | IllegalArgumentException e) {
            return new Invalid("the token is not base64url JSON");
        }
        if (header == null || !header.isObject() || claims == null || !claims.isObject()) {
            return new Invalid("the token's header or claims are not JSON objects");
        }
        if (header.has("crit")) {
            return new Invalid("the token has critical header parameters this proxy does not know");
        }
        String alg = header.path("alg").asText("");
        Algorithm algorithm = Algorithm.of(alg);
        if (algorithm == null) {
            return new Invalid("the algorithm \"" + alg + "\" is not accepted");
        }
        String kid = header.hasNonNull("kid") ? header.get("kid").asText() : null;
        byte[] signed = token.substring(0, b).getBytes(StandardCharsets.US_ASCII);
        boolean anyKey = false;
        for (Jwks.Key k : keys) {
            if (kid != null && k.kid() != null && !kid.equals(k.kid()) || !algorithm.fits(k)) {
                continue;
            }
            anyKey = true;
            if (algorithm.verifies(k, signed, signature)) {
                return claims(claims, spec, now);
            }
        }
        if (!anyKey && kid != null) {
            return new UnknownKey(kid);
        }
        return new Invalid(anyKey ? "the signature does not verify" : "no key for the algorithm " + alg);
    }

    private static byte[] decode(String token, int from, int to) {
        return Base64.getUrlDecoder().decode(token.substring(from, to));
    }

    /** The registered claims the rule asks about (RFC 7519 4.1). */
    private static Verdict claims(JsonNode claims, Route.JwtAuth spec, long now) {
        JsonNode exp = claims.get("exp");
        long expires = Long.MAX_VALUE;
        if (exp != null) {
            if (!exp.isNumber()) {
                return new Invalid("exp is not a number");
            }
            expires = exp.asLong();
            if (now >= expires + SKEW_SECONDS) {
                return new Invalid("the token expired");
            }
        }
        JsonNode nbf = claims.get("nbf");
        if (nbf != null && (!nbf.isNumber() || now + SKEW_SECONDS < nbf.asLong())) {
            return new Invalid("the token is not valid yet");
        }
        if (spec.issuer() != null && !spec.issuer().equals(claims.path("iss").asText(null))) {
            return new Invalid("the token is not from the issuer");
        }
        if (!spec.audiences().isEmpty() && !audienceFits(claims.get("aud"), spec.audiences())) {
            return new Invalid("the token is not for this audience");
        }
        return new Valid(claims, expires);
    }

    private static boolean audienceFits(JsonNode aud, List<String> wanted) {
        if (aud == null) {
            return false;
        }
        if (aud.isTextual()) {
            return wanted.contains(aud.asText());
        }
        if (aud.isArray()) {
            for (JsonNode a : aud) {
                if (a.isTextual() && wanted.contains(a.asText())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The asymmetric JWS algorithms, with the JCA signature each is and the keys that check it. */
    private enum Algorithm {
        RS256("SHA256withRSA", "RSA"), RS384("SHA384withRSA", "RSA"), RS512("SHA512withRSA", "RSA"),
        PS256("RSASSA-PSS", "RSA"), PS384("RSASSA-PSS", "RSA"), PS512("RSASSA-PSS", "RSA"),
        ES256("SHA256withECDSAinP1363Format", "EC"), ES384("SHA384withECDSAinP1363Format", "EC"),
        ES512("SHA512withECDSAinP1363Format", "EC"), EdDSA("Ed25519", "OKP");

        private final String jca;
        private final String kty;

        Algorithm(String jca, String kty) {
            this.jca = jca;
            this.kty = kty;
        }

        static Algorithm of(String name) {
            for (Algorithm a : values()) {
                if (a.name().equals(name)) {
                    return a;
                }
            }
            return null;
        }

        /** Whether {@code k} may check this algorithm: its kind, its curve for ECDSA (RFC 7518 3.4), its own alg. */
        boolean fits(Jwks.Key k) {
            if (!kty.equals(k.kty()) || k.alg() != null && !k.alg().equals(name())) {
                return false;
            }
            return switch (this) {
                case ES256 -> "P-256".equals(k.crv());
                case ES384 -> "P-384".equals(k.crv());
                case ES512 -> "P-521".equals(k.crv());
                default -> true;
            };
        }

        /**
         * The length a signature of {@code k} has (RFC 7518 3.3, 3.4; RFC 8037 3.1): anything else is refused before
         * the JDK sees it. JDK 17's Ed25519 takes a signature with a zero byte more, a second spelling of one token.
         */
        private int signatureLength(Jwks.Key k) {
            return switch (this) {
                case ES256 -> 64;
                case ES384 -> 96;
                case ES512 -> 132;
                case EdDSA -> 64;
                default -> (((java.security.interfaces.RSAPublicKey) k.publicKey()).getModulus().bitLength() + 7) / 8;
            };
        }

        boolean verifies(Jwks.Key k, byte[] signed, byte[] signature) {
            if (signature.length != signatureLength(k)) {
                return false;
            }
            try {
                Signature s = Signature.getInstance(jca);
                if (this == PS256 || this == PS384 || this == PS512) {
                    String hash = "SHA-" + name().substring(2);
                    int length = Integer.parseInt(name().substring(2)) / 8;
                    s.setParameter(new PSSParameterSpec(hash, "MGF1", new MGF1ParameterSpec(hash), length, 1));
                }
                s.initVerify(k.publicKey());
                s.update(signed);
                return s.verify(signature);
            } catch (GeneralSecurityException | RuntimeException e) {
                return false; // a signature of the wrong length, a key the provider refuses: not verified
            }
        }
    }
}
