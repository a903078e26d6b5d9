package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hashes made by other implementations: glibc's libxcrypt ({@code crypt(3)}: $1$, $5$, $6$), OpenSSL
 * ({@code openssl passwd -apr1}, {@code openssl dgst -sha1} for {SHA} and {SSHA}). Each must accept the
 * password it was made from, a password with a space, a colon and a non-ASCII letter, and nothing else.
 */
class PasswordHashesTest {
    private static final byte[] PASSWORD = "pa ss:wörd".getBytes(StandardCharsets.UTF_8);

    @ParameterizedTest
    @ValueSource(strings = {
        "$1$saltsalt$RNM9uT.8ilRHUGqh9bw9t1",
        "$apr1$sAlT1234$zyQo.9jXkwfQG39OatMyL0",
        "$5$rounds=5000$saltsalt$YmMTh/oF3vTXU3KW1W2EcIEj3TEaysCAd0OMaKKYFpC",
        "$5$rounds=1000$abc$cwISJKj8HO7AweMeI78dYsaWVpEHzTm0SANV9vRjRZ1",
        "$6$saltsalt$gER3pXfriHQvEHjjIlDUl8LkovRnMQ/1MCiShHAap/WwdJ9r7jtswquRuG9eejykFx.SIW01TW5fRYgDTG/6s.",
        "$6$rounds=10000$saltstring$uKvxcuZGiGt9zAZYlCiIiN94pVW7ZoRM7mjKB07LPhFVVUcmZoGrGRpPbCXqj.30RP7KW939M.D8.Sxp/Nrwy1",
        "{SHA}kniYfDOveJALlwGbJH1veyGzBwU=",
        "{SSHA}0rY5henjrOqdsd94TZ4Hzq72TaxTQUxUYnl0ZXM=",
        "{PLAIN}pa ss:wörd",
        "$2b$05$abcdefghijklmnopqrstuuqFLmQ.3HrAqiqrcEg7zOXCzfs1cxF92",
        "$2y$04$ABCDEFGHIJKLMNOPQRSTUuL7/CZ2yXo.tjqS0PcJCrRcZwO0KHuKy",
        "$2a$06$0123456789./abcdefghieOX11qniPE53LbsMlF3lLtNbKX0MKUgK",
    })
    void acceptsThePasswordAndNothingElse(String hash) {
        assertThat(PasswordHashes.matches(hash, PASSWORD)).isTrue();
        for (String wrong : new String[] {"pa ss:word", "pa ss:wörd ", "", "PA SS:WÖRD"}) {
            assertThat(PasswordHashes.matches(hash, wrong.getBytes(StandardCharsets.UTF_8))).as(wrong).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"$1$ab$dslkcXxVH.x8LwW1W/oAB/", "$apr1$x$12YdXEY0/hH4rDNkmZupO0"})
    void shortSalts(String hash) {
        assertThat(PasswordHashes.matches(hash, "secret".getBytes(StandardCharsets.US_ASCII))).isTrue();
    }

    /** bcrypt's edges: an empty password, and one past 72 bytes, of which only the first 72 count. */
    @org.junit.jupiter.api.Test
    void bcryptEdges() {
        assertThat(PasswordHashes.matches("$2b$04$abcdefghijklmnopqrstuubyCG3zY1GIXMyxfivm.ClDiInHzxjiq", new byte[0])).isTrue();
        String x72 = "$2b$04$abcdefghijklmnopqrstuubzadhGtS2zEF.gu0yd0opP6cVzb.e0i";
        assertThat(PasswordHashes.matches(x72, "x".repeat(72).getBytes(StandardCharsets.US_ASCII))).isTrue();
        assertThat(PasswordHashes.matches(x72, "x".repeat(80).getBytes(StandardCharsets.US_ASCII))).isTrue();
        assertThat(PasswordHashes.matches(x72, "x".repeat(71).getBytes(StandardCharsets.US_ASCII))).isFalse();
        assertThat(PasswordHashes.matches("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
                "U*U".getBytes(StandardCharsets.US_ASCII))).isTrue();
        // Blowfish's first words are pi's: 3.243F6A88 85A308D3 13198A2E 03707344 ...
        assertThat(BCrypt.piWords()).startsWith(0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344);
    }

    @ParameterizedTest
    @ValueSource(strings = {"$2x$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a", "abJnggxhB/yWI", "secret"})
    void aHashNotCheckedMatchesNothing(String hash) {
        assertThat(PasswordHashes.matches(hash, "secret".getBytes(StandardCharsets.US_ASCII))).isFalse();
    }
}
