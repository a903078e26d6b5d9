package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import org.junit.jupiter.api.Test;

/** A Route's TLS Secret becomes PEM material on the snapshot's https listener. */
class TlsTest {
    private static final String CERT = Fixtures.CERT;
    private static final String KEY = Fixtures.KEY;

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

    @Test
    void aSecretWhoseKeyDoesNotMatchLeavesOnlyItsCertificateOut() {
        Translation t = Fixtures.translate(
                Fixtures.tlsSecret("shop", "bad-tls", CERT, Fixtures.OTHER_KEY),
                route("shop", "secure", 1, "tls: { secretName: bad-tls }\nhosts: [ secure.example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "plain", 2, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        assertThat(Fixtures.routeReport(t, "shop", "secure").errors())
                .containsExactly("spec.tls.secretName: Secret \"bad-tls\": tls.key does not match the certificate in tls.crt");
        assertThat(Fixtures.routeNames(t)).as("still served, without its certificate (ADR 0049)")
                .containsExactly("shop.secure", "shop.plain");
        assertThat(t.snapshot(Fixtures.STRAIT).config().listeners()).extracting(Config.Listener::name)
                .as("no https listener with a certificate no proxy could load").containsExactly("http");
    }

    @Test
    void aSecretWithABrokenCertificateIsReportedByField() {
        Translation t = Fixtures.translate(
                Fixtures.tlsSecret("shop", "bad-tls", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", KEY),
                route("shop", "secure", 1, "tls: { secretName: bad-tls }\nhosts: [ secure.example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        assertThat(Fixtures.routeReport(t, "shop", "secure").errors()).singleElement().asString()
                .startsWith("spec.tls.secretName: Secret \"bad-tls\": tls.crt is not a PEM certificate");
    }
}
