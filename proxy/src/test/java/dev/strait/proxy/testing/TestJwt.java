package dev.strait.proxy.testing;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Arrays;
import java.util.Base64;

/**
 * A signer of JSON Web Tokens for tests, with the JDK's own crypto: a key pair of one kind, its JWK (what a provider
 * publishes at its jwks_uri) and tokens signed with it, so tests see what the proxy makes of genuine and forged ones.
 */
public final class TestJwt {
    public enum Kind {
        RS256("RSA", "SHA256withRSA"), PS256("RSASSA-PSS", "RSASSA-PSS"), ES256("EC", "SHA256withECDSAinP1363Format"),
        EdDSA("Ed25519", "Ed25519");

        final String keyAlgorithm;
        final String jca;

        Kind(String keyAlgorithm, String jca) {
            this.keyAlgorithm = keyAlgorithm;
            this.jca = jca;
        }
    }

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    public final Kind kind;
    public final String kid;
    private final KeyPair keys;

    public TestJwt(Kind kind, String kid) throws Exception {
        this.kind = kind;
        this.kid = kid;
        KeyPairGenerator g = KeyPairGenerator.getInstance(kind == Kind.PS256 ? "RSA" : kind.keyAlgorithm);
        if (kind == Kind.ES256) {
            g.initialize(new ECGenParameterSpec("secp256r1"));
        } else if (kind == Kind.RS256 || kind == Kind.PS256) {
            g.initialize(2048);
        }
        keys = g.generateKeyPair();
    }

    /** The public key as a JWK, JSON. */
    public String jwk() {
        String kidField = kid == null ? "" : ",\"kid\":\"" + kid + "\"";
        if (keys.getPublic() instanceof RSAPublicKey r) {
            return "{\"kty\":\"RSA\",\"use\":\"sig\"" + kidField + ",\"n\":\"" + unsigned(r.getModulus()) + "\",\"e\":\""
                    + unsigned(r.getPublicExponent()) + "\"}";
        }
        if (keys.getPublic() instanceof ECPublicKey e) {
            return "{\"kty\":\"EC\",\"crv\":\"P-256\"" + kidField + ",\"x\":\"" + coordinate(e.getW().getAffineX())
                    + "\",\"y\":\"" + coordinate(e.getW().getAffineY()) + "\"}";
        }
        byte[] spki = keys.getPublic().getEncoded(); // Ed25519: the last 32 bytes are the key
        byte[] x = Arrays.copyOfRange(spki, spki.length - 32, spki.length);
        return "{\"kty\":\"OKP\",\"crv\":\"Ed25519\"" + kidField + ",\"x\":\"" + B64.encodeToString(x) + "\"}";
    }

    /** A JWK Set of these signers' keys. */
    public static String jwks(TestJwt... signers) {
        return "{\"keys\":[" + String.join(",", Arrays.stream(signers).map(TestJwt::jwk).toList()) + "]}";
    }

    /** A token with these claims (a JSON object's members, without braces), signed. */
    public String token(String claims) throws Exception {
        String header = "{\"alg\":\"" + kind.name() + "\",\"typ\":\"JWT\"" + (kid == null ? "" : ",\"kid\":\"" + kid + "\"")
                + "}";
        return sign(header, "{" + claims + "}");
    }

    /** A token of this header and payload (JSON), signed with this key whatever the header says. */
    public String sign(String header, String payload) throws Exception {
        String signed = B64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + B64.encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        Signature s = Signature.getInstance(kind.jca);
        if (kind == Kind.PS256) {
            s.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
        }
        s.initSign(keys.getPrivate());
        s.update(signed.getBytes(StandardCharsets.US_ASCII));
        return signed + "." + B64.encodeToString(s.sign());
    }

    /** Epoch seconds {@code offset} from now, for exp and nbf. */
    public static long in(long offsetSeconds) {
        return System.currentTimeMillis() / 1000 + offsetSeconds;
    }

    private static String unsigned(BigInteger v) {
        byte[] b = v.toByteArray();
        if (b.length > 1 && b[0] == 0) {
            b = Arrays.copyOfRange(b, 1, b.length);
        }
        return B64.encodeToString(b);
    }

    private static String coordinate(BigInteger v) {
        byte[] b = v.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(b.length, 32);
        System.arraycopy(b, b.length - n, out, 32 - n, n);
        return B64.encodeToString(out);
    }
}
