package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import org.junit.jupiter.api.Test;

/** A Route's TLS Secret becomes PEM material on the snapshot's https listener. */
class TlsTest {
    private static final String CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    private static final String KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";

    @Test
    void httpsListenerAppearsWithTheSecretsPem() {
        Translation t = Fixtures.translate(
                Fixtures.tlsSecret("shop", "site-tls", CERT, KEY),
                route("shop", "site", 1, "tls: { secretName: site-tls }\nhosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "again", 2, "tls: { secretName: site-tls }\nhosts: [ www.example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        Config c = t.snapshot(Fixtures.STRAIT).config();
        assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("http", "https");
        assertThat(c.listeners().get(1).address().port()).isEqualTo(8443);
        assertThat(c.listeners().get(1).tls().certificates()).as("one Secret, listed once")
                .containsExactly(new Config.Certificate(CERT, KEY));
    }

    @Test
    void noTlsRouteNoHttpsListener() {
        Translation t = Fixtures.translate(
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        assertThat(t.snapshot(Fixtures.STRAIT).config().listeners()).extracting(Config.Listener::name).containsExactly("http");
    }
}
