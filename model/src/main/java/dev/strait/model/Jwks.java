package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * A JSON Web Key Set (RFC 7517), as an identity provider publishes it at its {@code jwks_uri}: the public keys that
 * check tokens' signatures (RFC 7518 RSA and EC keys, RFC 8037 Ed25519). Keys for encryption ({@code use: enc}),
 * symmetric ones ({@code kty: oct}) and kinds not known are left out and said why, so a provider's set that also
 * lists such keys still loads; a set with no key left is an error.
 */
public final class Jwks {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The DER prefix of an Ed25519 SubjectPublicKeyInfo, before the key's 32 bytes (RFC 8410). */
    private static final byte[] ED25519_SPKI = HexFormat.of().parseHex("302a300506032b6570032100");

    private Jwks() {}

    /**
     * A key that checks signatures.
     *
     * @param kid its id, or null: a token names the key it was signed with by {@code kid}
     * @param alg the one algorithm it is for ({@code RS256}), or null: any of its kind
     * @param kty {@code RSA}, {@code EC} or {@code OKP}
     * @param crv its curve ({@code P-256}, {@code Ed25519}), or null for RSA
     */
    public record Key(String kid, String alg, String kty, String crv, PublicKey publicKey) {}

    /** The keys of a set, and why each key left out was. */
    public record Set(List<Key> keys, List<String> skipped) {
        public Set {
            keys = List.copyOf(keys);
            skipped = List.copyOf(skipped);
        }
    }

    /** Not a JWK Set, or one without a key that can check signatures. */
    public static final class Invalid extends Exception {
        public Invalid(String message) {
            super(message);
        }
    }

    /** Reads a set; at least one key must be usable. */
    public static Set parse(String json) throws Invalid {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new Invalid("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new Invalid("not JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject() || !root.path("keys").isArray()) {
            throw new Invalid("not a JWK Set: an object with a \"keys\" list");
        }
        List<Key> keys = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        JsonNode list = root.get("keys");
        for (int i = 0; i < list.size(); i++) {
            try {
                Key k = key(list.get(i));
                if (k != null) {
                    keys.add(k);
                }
            } catch (Invalid e) {
                skipped.add("keys[" + i + "]: " + e.getMessage());
            }
        }
        if (keys.isEmpty()) {
            throw new Invalid("has no key that checks signatures" + (skipped.isEmpty() ? "" : " (" + String.join("; ",
                    skipped) + ")"));
        }
        return new Set(keys, skipped);
    }

    private static Key key(JsonNode k) throws Invalid {
        if (!k.isObject()) {
            throw new Invalid("not an object");
        }
        String kty = text(k, "kty");
        String use = text(k, "use");
        if (use != null && !use.equals("sig")) {
            throw new Invalid("use \"" + use + "\": not for signatures");
        }
        String kid = text(k, "kid");
        String alg = text(k, "alg");
        if (kty == null) {
            throw new Invalid("no kty");
        }
        try {
            return switch (kty) {
                case "RSA" -> {
                    BigInteger n = new BigInteger(1, bytes(k, "n"));
                    BigInteger e = new BigInteger(1, bytes(k, "e"));
                    if (n.bitLength() < 2048) {
                        throw new Invalid("an RSA key of " + n.bitLength() + " bits; 2048 at least (RFC 7518 3.3)");
                    }
                    yield new Key(kid, alg, kty, null, KeyFactory.getInstance("RSA")
                            .generatePublic(new RSAPublicKeySpec(n, e)));
                }
                case "EC" -> {
                    String crv = text(k, "crv");
                    String curve = crv == null ? null : switch (crv) {
                        case "P-256" -> "secp256r1";
                        case "P-384" -> "secp384r1";
                        case "P-521" -> "secp521r1";
                        default -> null;
                    };
                    if (curve == null) {
                        throw new Invalid("curve " + crv + ": P-256, P-384 or P-521 are taken");
                    }
                    AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
                    p.init(new ECGenParameterSpec(curve));
                    ECParameterSpec spec = p.getParameterSpec(ECParameterSpec.class);
                    ECPoint w = new ECPoint(new BigInteger(1, bytes(k, "x")), new BigInteger(1, bytes(k, "y")));
                    yield new Key(kid, alg, kty, crv, KeyFactory.getInstance("EC")
                            .generatePublic(new ECPublicKeySpec(w, spec)));
                }
                case "OKP" -> {
                    String crv = text(k, "crv");
                    if (!"Ed25519".equals(crv)) {
                        throw new Invalid("curve " + crv + ": Ed25519 is taken");
                    }
                    byte[] x = bytes(k, "x");
                    if (x.length != 32) {
                        throw new Invalid("an Ed25519 key of " + x.length + " bytes, not 32");
                    }
                    byte[] der = new byte[ED25519_SPKI.length + 32];
                    System.arraycopy(ED25519_SPKI, 0, der, 0, ED25519_SPKI.length);
                    System.arraycopy(x, 0, der, ED25519_SPKI.length, 32);
                    yield new Key(kid, alg, kty, crv, KeyFactory.getInstance("Ed25519")
                            .generatePublic(new X509EncodedKeySpec(der)));
                }
                case "oct" -> throw new Invalid("kty oct: a shared secret, not taken (only public keys check tokens"
                        + " here)");
                default -> throw new Invalid("kty \"" + kty + "\" is not known");
            };
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new Invalid("kty " + kty + ": not a usable key: " + e.getMessage());
        }
    }

    private static String text(JsonNode k, String field) {
        JsonNode v = k.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    private static byte[] bytes(JsonNode k, String field) throws Invalid {
        String v = text(k, field);
        if (v == null || v.isEmpty()) {
            throw new Invalid("no " + field);
        }
        try {
            return Base64.getUrlDecoder().decode(v);
        } catch (IllegalArgumentException e) {
            throw new Invalid(field + " is not base64url");
        }
    }
}
