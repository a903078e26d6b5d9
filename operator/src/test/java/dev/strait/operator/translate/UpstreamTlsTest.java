package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.CERT;
import static dev.strait.operator.translate.Fixtures.KEY;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Upstream;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An Upstream's {@code spec.tls} Secrets become inline PEM in the snapshot's {@code upstreams[].tls}; a
 * missing or bad one is reported on the Upstream by field and leaves the Upstream out: the backends that
 * name it answer 503 (ADR 0049), never in the clear.
 */
class UpstreamTlsTest {
    private static final String BROKEN_PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    private static final List<Object> SECRETS = List.of(
            Fixtures.caSecret("shop", "api-ca", CERT),
            Fixtures.tlsSecret("shop", "api-client", CERT, KEY),
            Fixtures.caSecret("shop", "broken-ca", BROKEN_PEM),
            Fixtures.tlsSecret("shop", "mismatched", CERT, Fixtures.OTHER_KEY),
            Fixtures.caSecret("shop", "opaque-client", CERT),
            Fixtures.caSecret("other", "elsewhere-ca", CERT));

    private static Object[] with(Object... more) {
        List<Object> all = new java.util.ArrayList<>(SECRETS);
        all.addAll(List.of(more));
        all.add(Fixtures.service("shop", "api", "http:80"));
        all.add(Fixtures.slice("shop", "api", "api-1", "http", 8443, "10.0.0.1"));
        all.add(route("shop", "uses-api", 1, "hosts: [ api.example.com ]\nrules: [ { backends: [ { upstream: api } ] } ]"));
        all.add(route("shop", "plain", 2, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        return all.toArray();
    }

    @Test
    void secretsBecomeInlinePem() {
        Translation t = Fixtures.translate(with(upstream("shop", "api", """
                service: { name: api, port: 80 }
                tls: { caSecretName: api-ca, serverName: api.internal, clientCertificateSecretName: api-client }""")));
        assertThat(Fixtures.upstreamReport(t, "shop", "api").errors()).isEmpty();
        Upstream u = t.snapshot(Fixtures.STRAIT).config().upstreams().get(0);
        assertThat(u.tls()).isEqualTo(new Upstream.Tls(CERT, "api.internal", CERT, KEY));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.uses-api", "shop.plain");
    }

    @Test
    void aChainDepthIsPassedOn() {
        Translation t = Fixtures.translate(with(upstream("shop", "api", """
                service: { name: api, port: 80 }
                tls: { caSecretName: api-ca, verifyDepth: 2 }""")));
        assertThat(Fixtures.upstreamReport(t, "shop", "api").errors()).isEmpty();
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams().get(0).tls())
                .isEqualTo(new Upstream.Tls(CERT, null, null, null, true, 2));
    }

    @Test
    void onlyAServerNameNeedsNoSecret() {
        Translation t = Fixtures.translate(with(upstream("shop", "api", """
                service: { name: api, port: 80 }
                tls: { serverName: api.internal }""")));
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams().get(0).tls())
                .isEqualTo(new Upstream.Tls(null, "api.internal", null, null));
    }

    static Stream<Arguments> badSecrets() {
        return Stream.of(
                Arguments.of("missing CA Secret", "caSecretName: gone", "SecretNotFound",
                        "spec.tls.caSecretName: Secret \"gone\" not found"),
                Arguments.of("CA Secret in another namespace does not count", "caSecretName: elsewhere-ca",
                        "SecretNotFound", "spec.tls.caSecretName: Secret \"elsewhere-ca\" not found"),
                Arguments.of("CA Secret without ca.crt", "caSecretName: api-client", "InvalidSecret",
                        "spec.tls.caSecretName: Secret \"api-client\" needs PEM data in ca.crt"),
                Arguments.of("CA Secret with a broken certificate", "caSecretName: broken-ca", "InvalidSecret",
                        "spec.tls.caSecretName: Secret \"broken-ca\" holds no PEM certificate in ca.crt"),
                Arguments.of("missing client certificate Secret", "clientCertificateSecretName: gone",
                        "SecretNotFound", "spec.tls.clientCertificateSecretName: Secret \"gone\" not found"),
                Arguments.of("client certificate in an Opaque Secret", "clientCertificateSecretName: opaque-client",
                        "InvalidSecret", "spec.tls.clientCertificateSecretName: Secret \"opaque-client\" needs PEM data"
                                + " in tls.crt and tls.key (type kubernetes.io/tls)"),
                Arguments.of("client key that does not match", "clientCertificateSecretName: mismatched",
                        "InvalidSecret", "spec.tls.clientCertificateSecretName: Secret \"mismatched\": tls.key does"
                                + " not match the certificate in tls.crt"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSecrets")
    void aBadSecretIsReportedOnTheUpstreamAndItsBackendsAnswer503(String name, String tls, String reason,
                                                                 String error) {
        Translation t = Fixtures.translate(with(
                upstream("shop", "api", "service: { name: api, port: 80 }\ntls: { " + tls + " }")));
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.accepted().status()).as("the spec itself is fine").isTrue();
        assertThat(u.resolvedRefs().status()).isFalse();
        assertThat(u.resolvedRefs().reason()).isEqualTo(reason);
        assertThat(u.resolvedRefs().message()).startsWith(error);
        ResourceReport r = Fixtures.routeReport(t, "shop", "uses-api");
        assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(r.resolvedRefs().message()).startsWith(
                "spec.rules[0].backends[0].upstream: Upstream \"api\" is not valid: " + error);
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.uses-api", "shop.plain");
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams()).as("never serves it in the clear")
                .extracting(Upstream::name).containsExactly(Translator.UNRESOLVED);
    }

    @Test
    void aFixedSecretBringsTheUpstreamAndItsRoutesBack() {
        Object api = upstream("shop", "api", "service: { name: api, port: 80 }\ntls: { caSecretName: late-ca }");
        Translation before = Fixtures.translate(with(api));
        assertThat(before.snapshot(Fixtures.STRAIT).config().upstreams()).extracting(Upstream::name)
                .containsExactly(Translator.UNRESOLVED);
        Secret late = Fixtures.caSecret("shop", "late-ca", CERT);
        Translation after = Fixtures.translate(with(api, late));
        assertThat(Fixtures.upstreamReport(after, "shop", "api").resolvedRefs().status()).isTrue();
        assertThat(Fixtures.routeNames(after)).containsExactly("shop.uses-api", "shop.plain");
        assertThat(after.snapshot(Fixtures.STRAIT).config().upstreams().get(0).tls().ca()).isEqualTo(CERT);
    }
}
