package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** A JWK Set as providers publish them: the keys taken, and those left out with the reason. */
class JwksTest {
    private static String b64(BigInteger v, int length) {
        byte[] b = v.toByteArray();
        if (length > 0) {
            byte[] out = new byte[length];
            int n = Math.min(b.length, length);
            System.arraycopy(b, b.length - n, out, length - n, n);
            b = out;
        } else if (b[0] == 0) {
            b = Arrays.copyOfRange(b, 1, b.length);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String rsa(int bits, String extra) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(bits);
        RSAPublicKey k = (RSAPublicKey) g.generateKeyPair().getPublic();
        return "{\"kty\":\"RSA\"" + extra + ",\"n\":\"" + b64(k.getModulus(), 0) + "\",\"e\":\""
                + b64(k.getPublicExponent(), 0) + "\"}";
    }

    @Test
    void aProvidersSetLoadsWithWhatItCannotUseLeftOutAndSaid() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        ECPublicKey ec = (ECPublicKey) g.generateKeyPair().getPublic();
        String ecJwk = "{\"kty\":\"EC\",\"kid\":\"e1\",\"alg\":\"ES256\",\"crv\":\"P-256\",\"x\":\""
                + b64(ec.getW().getAffineX(), 32) + "\",\"y\":\"" + b64(ec.getW().getAffineY(), 32) + "\"}";
        String set = "{\"keys\":[" + rsa(2048, ",\"kid\":\"r1\",\"use\":\"sig\"") + "," + ecJwk + ","
                + rsa(2048, ",\"kid\":\"r2\",\"use\":\"enc\"") + "," + rsa(1024, ",\"kid\":\"weak\"") + ","
                + "{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"},{\"kty\":\"EC\",\"crv\":\"secp256k1\",\"x\":\"AA\",\"y\":\"AA\"},"
                + "{\"kty\":\"PQC\"},{\"kty\":\"RSA\",\"n\":\"!!\",\"e\":\"AQAB\"}]}";
        Jwks.Set s = Jwks.parse(set);
        assertThat(s.keys()).extracting(Jwks.Key::kid).containsExactly("r1", "e1");
        assertThat(s.keys().get(1).alg()).isEqualTo("ES256");
        assertThat(s.keys().get(1).publicKey().getEncoded()).isEqualTo(ec.getEncoded());
        assertThat(s.skipped()).containsExactly(
                "keys[2]: use \"enc\": not for signatures",
                "keys[3]: an RSA key of 1024 bits; 2048 at least (RFC 7518 3.3)",
                "keys[4]: kty oct: a shared secret, not taken (only public keys check tokens here)",
                "keys[5]: curve secp256k1: P-256, P-384 or P-521 are taken",
                "keys[6]: kty \"PQC\" is not known",
                "keys[7]: n is not base64url");
    }

    @Test
    void aSetWithoutAUsableKeyOrNoSetAtAllIsRefused() {
        assertThatThrownBy(() -> Jwks.parse("{\"keys\":[]}")).hasMessage("has no key that checks signatures");
        assertThatThrownBy(() -> Jwks.parse("{\"keys\":[{\"kty\":\"oct\",\"k\":\"AA\"}]}"))
                .hasMessageStartingWith("has no key that checks signatures (keys[0]: kty oct");
        assertThatThrownBy(() -> Jwks.parse("[]")).hasMessageStartingWith("not a JWK Set");
        assertThatThrownBy(() -> Jwks.parse("{\"keys\":")).hasMessageStartingWith("not JSON");
    }
}
