package dev.strait.proxy.jwt;

import static dev.strait.proxy.testing.TestJwt.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Jwks;
import dev.strait.model.Route;
import dev.strait.proxy.testing.TestJwt;
import dev.strait.proxy.testing.TestJwt.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokens of every algorithm taken, and the forgeries and stale tokens a verifier must refuse. */
class JwtVerifierTest {
    private static final Route.JwtAuth ANY = spec(null, List.of());
    private static final long NOW = System.currentTimeMillis() / 1000;

    private static Route.JwtAuth spec(String issuer, List<String> audiences) {
        return new Route.JwtAuth(issuer, audiences, null, "https://idp.example/jwks", Duration.ofMinutes(10), false, null,
                List.of(), "strait");
    }

    private static List<Jwks.Key> keys(TestJwt... signers) throws Exception {
        return Jwks.parse(TestJwt.jwks(signers)).keys();
    }

    private static String why(JwtVerifier.Verdict v) {
        assertThat(v).isInstanceOf(JwtVerifier.Invalid.class);
        return ((JwtVerifier.Invalid) v).why();
    }

    @Test
    void everyAlgorithmTakenVerifies() throws Exception {
        for (Kind kind : Kind.values()) {
            TestJwt signer = new TestJwt(kind, "k-" + kind);
            JwtVerifier.Verdict v = JwtVerifier.verify(signer.token("\"sub\":\"alice\",\"exp\":" + in(60)), keys(signer),
                    ANY, NOW);
            assertThat(v).as(kind.name()).isInstanceOf(JwtVerifier.Valid.class);
            assertThat(((JwtVerifier.Valid) v).claims().get("sub").asText()).isEqualTo("alice");
        }
    }

    @Test
    void aSignatureOfAnotherKeyOrOtherClaimsDoesNotVerify() throws Exception {
        TestJwt ours = new TestJwt(Kind.ES256, "k1");
        TestJwt theirs = new TestJwt(Kind.ES256, "k1");
        assertThat(why(JwtVerifier.verify(theirs.token("\"sub\":\"alice\""), keys(ours), ANY, NOW)))
                .isEqualTo("the signature does not verify");
        String token = ours.token("\"sub\":\"alice\"");
        String[] parts = token.split("\\.");
        String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"sub\":\"admin\"}".getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertThat(why(JwtVerifier.verify(forged, keys(ours), ANY, NOW))).isEqualTo("the signature does not verify");
    }

    /** alg none, HMAC with the public key as the secret (the classic confusion), a key of the wrong kind. */
    @Test
    void algorithmsThatAnyoneCouldSignAreRefused() throws Exception {
        TestJwt rsa = new TestJwt(Kind.RS256, "k1");
        String payload = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"sub\":\"admin\"}".getBytes());
        String none = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes());
        assertThat(why(JwtVerifier.verify(none + "." + payload + ".", keys(rsa), ANY, NOW)))
                .startsWith("not a signed JWT");
        assertThat(why(JwtVerifier.verify(none + "." + payload + ".c2ln", keys(rsa), ANY, NOW)))
                .isEqualTo("the algorithm \"none\" is not accepted");
        String hs = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"HS256\",\"kid\":\"k1\"}".getBytes());
        assertThat(why(JwtVerifier.verify(hs + "." + payload + ".c2ln", keys(rsa), ANY, NOW)))
                .isEqualTo("the algorithm \"HS256\" is not accepted");
        // An RS256 header over an EC key: no key of that kind, whatever kid says.
        TestJwt ec = new TestJwt(Kind.ES256, null);
        assertThat(why(JwtVerifier.verify(rsa.sign("{\"alg\":\"RS256\"}", "{}"), keys(ec), ANY, NOW)))
                .isEqualTo("no key for the algorithm RS256");
        assertThat(why(JwtVerifier.verify(rsa.sign("{\"alg\":\"RS256\",\"crit\":[\"exp\"]}", "{}"), keys(rsa), ANY, NOW)))
                .contains("critical");
    }

    @Test
    void expiryNotBeforeIssuerAndAudienceAreChecked() throws Exception {
        TestJwt s = new TestJwt(Kind.RS256, "k1");
        List<Jwks.Key> keys = keys(s);
        assertThat(why(JwtVerifier.verify(s.token("\"exp\":" + in(-61)), keys, ANY, NOW))).isEqualTo("the token expired");
        assertThat(JwtVerifier.verify(s.token("\"exp\":" + in(-30)), keys, ANY, NOW)).as("within the skew")
                .isInstanceOf(JwtVerifier.Valid.class);
        assertThat(why(JwtVerifier.verify(s.token("\"exp\":\"soon\""), keys, ANY, NOW))).isEqualTo("exp is not a number");
        assertThat(why(JwtVerifier.verify(s.token("\"nbf\":" + in(120)), keys, ANY, NOW)))
                .isEqualTo("the token is not valid yet");
        Route.JwtAuth strict = spec("https://idp.example/", List.of("api", "web"));
        assertThat(JwtVerifier.verify(s.token("\"iss\":\"https://idp.example/\",\"aud\":[\"other\",\"web\"]"), keys,
                strict, NOW)).isInstanceOf(JwtVerifier.Valid.class);
        assertThat(JwtVerifier.verify(s.token("\"iss\":\"https://idp.example/\",\"aud\":\"api\""), keys, strict, NOW))
                .isInstanceOf(JwtVerifier.Valid.class);
        assertThat(why(JwtVerifier.verify(s.token("\"iss\":\"https://evil.example/\",\"aud\":\"api\""), keys, strict,
                NOW))).isEqualTo("the token is not from the issuer");
        assertThat(why(JwtVerifier.verify(s.token("\"iss\":\"https://idp.example/\",\"aud\":\"other\""), keys, strict,
                NOW))).isEqualTo("the token is not for this audience");
        assertThat(why(JwtVerifier.verify(s.token("\"iss\":\"https://idp.example/\""), keys, strict, NOW)))
                .isEqualTo("the token is not for this audience");
    }

    @Test
    void anUnknownKeyIsToldApartSoTheKeysCanBeFetchedAgain() throws Exception {
        TestJwt old = new TestJwt(Kind.ES256, "2025");
        TestJwt rotated = new TestJwt(Kind.ES256, "2026");
        assertThat(JwtVerifier.verify(rotated.token("\"sub\":\"a\""), keys(old), ANY, NOW))
                .isEqualTo(new JwtVerifier.UnknownKey("2026"));
        assertThat(JwtVerifier.verify(rotated.token("\"sub\":\"a\""), keys(old, rotated), ANY, NOW))
                .isInstanceOf(JwtVerifier.Valid.class);
    }

    /**
     * Mutations of genuine tokens (changed, dropped, doubled and inserted characters, one to three at a time) never
     * throw, and are valid only when they still decode to the very header, claims and signature signed (base64url
     * has spellings the decoder maps to the same bytes).
     */
    @Test
    void mutatedTokensNeverThrowAndPassOnlyWhenTheyDecodeToWhatWasSigned() throws Exception {
        java.util.Random random = new java.util.Random(42);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \"{}";
        for (Kind kind : Kind.values()) {
            TestJwt signer = new TestJwt(kind, "k");
            List<Jwks.Key> keys = keys(signer);
            String token = signer.token("\"sub\":\"alice\",\"exp\":" + in(600));
            List<byte[]> signed = decoded(token);
            for (int i = 0; i < 5_000; i++) {
                StringBuilder t = new StringBuilder(token);
                for (int m = 1 + random.nextInt(3); m > 0 && t.length() > 0; m--) {
                    int at = random.nextInt(t.length());
                    char c = alphabet.charAt(random.nextInt(alphabet.length()));
                    switch (random.nextInt(4)) {
                        case 0 -> t.setCharAt(at, c);
                        case 1 -> t.deleteCharAt(at);
                        case 2 -> t.insert(at, t.charAt(at));
                        default -> t.insert(at, c);
                    }
                }
                String mutated = t.toString();
                JwtVerifier.Verdict v = JwtVerifier.verify(mutated, keys, ANY, NOW);
                if (v instanceof JwtVerifier.Valid) {
                    List<byte[]> parts = decoded(mutated);
                    assertThat(parts).as(mutated).isNotNull();
                    for (int p = 0; p < 3; p++) {
                        assertThat(parts.get(p)).as(kind + " " + mutated).isEqualTo(signed.get(p));
                    }
                }
            }
        }
    }

    /** The three parts' bytes, or null when it is not three base64url parts. */
    private static List<byte[]> decoded(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            return List.of(Base64.getUrlDecoder().decode(parts[0]), Base64.getUrlDecoder().decode(parts[1]),
                    Base64.getUrlDecoder().decode(parts[2]));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Test
    void whatIsNotATokenIsSaidSo() throws Exception {
        TestJwt s = new TestJwt(Kind.EdDSA, null);
        for (String bad : new String[] {"abc", "a.b", "a..c", ".b.c", "a.b.c.d", "!!.??.**", "e30.e30.", "W10.e30.c2ln",
                "x".repeat(20_000)}) {
            assertThat(JwtVerifier.verify(bad, keys(s), ANY, NOW)).as(bad.length() > 40 ? "long" : bad)
                    .isInstanceOf(JwtVerifier.Invalid.class);
        }
    }
}
