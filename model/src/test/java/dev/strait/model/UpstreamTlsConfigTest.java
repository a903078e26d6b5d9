package dev.strait.model;

import static dev.strait.model.TestConfigs.LISTENER;
import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code upstreams[].tls}: TLS to the endpoints, validated with field paths and written back unchanged. */
class UpstreamTlsConfigTest {
    static String upstream(String extra) {
        return LISTENER + "upstreams:\n  - { name: app, endpoints: [ \"127.0.0.1:3000\" ]" + extra + " }\n";
    }

    @Test
    void parsedAndWrittenBack() throws Exception {
        Config c = parse(upstream(", tls: { ca: /etc/ca.pem, serverName: api.internal, cert: /etc/c.pem, key: /etc/k.pem }"));
        assertThat(c.upstreams().get(0).tls())
                .isEqualTo(new Upstream.Tls("/etc/ca.pem", "api.internal", "/etc/c.pem", "/etc/k.pem"));
        assertThat(parse(ConfigWriter.toJson(c, false))).isEqualTo(c);
        assertThat(parse(upstream(", tls: {}")).upstreams().get(0).tls()).isEqualTo(new Upstream.Tls(null, null, null, null));
        assertThat(parse(upstream("")).upstreams().get(0).tls()).isNull();
        Config unverified = parse(upstream(", tls: { verify: false }"));
        assertThat(unverified.upstreams().get(0).tls()).isEqualTo(Upstream.Tls.UNVERIFIED);
        assertThat(parse(ConfigWriter.toJson(unverified, false))).isEqualTo(unverified);
        assertThat(ConfigWriter.toJson(c, false)).as("verify written only when false").doesNotContain("verify");
        Config deep = parse(upstream(", tls: { ca: /etc/ca.pem, verifyDepth: 2 }"));
        assertThat(deep.upstreams().get(0).tls()).isEqualTo(new Upstream.Tls("/etc/ca.pem", null, null, null, true, 2));
        assertThat(parse(ConfigWriter.toJson(deep, false))).isEqualTo(deep);
    }

    private static java.util.List<String> texts(String yaml) {
        return errors(yaml).stream().map(e -> e.path() + ": " + e.message()).toList();
    }

    @Test
    void errorsNameTheField() {
        assertThat(texts(upstream(", tls: { cert: /c.pem }")))
                .containsExactly("upstreams[0].tls.key: is required with cert (mutual TLS needs both)");
        assertThat(texts(upstream(", tls: { key: /k.pem }")))
                .containsExactly("upstreams[0].tls.cert: is required with key (mutual TLS needs both)");
        assertThat(texts(upstream(", tls: { serverName: \"not a name\" }")))
                .containsExactly("upstreams[0].tls.serverName: \"not a name\" is not a host name");
        assertThat(texts(upstream(", tls: { sni: x }"))).hasSize(1).allMatch(e -> e.startsWith("upstreams[0].tls.sni"));
        assertThat(texts(upstream(", tls: { verify: false, ca: /etc/ca.pem }")))
                .containsExactly("upstreams[0].tls.ca: is not used with verify: false (nothing is checked); give one or the other");
        assertThat(texts(upstream(", tls: { ca: /etc/ca.pem, verifyDepth: 11 }")))
                .containsExactly("upstreams[0].tls.verifyDepth: must be a whole number 1..10, got 11");
        assertThat(texts(upstream(", tls: { verifyDepth: 2 }")))
                .containsExactly("upstreams[0].tls.verifyDepth: needs ca (the depth counts up to one of its CAs)");
        assertThat(texts(upstream(", protocol: fastcgi, tls: {}")))
                .contains("upstreams[0].tls: is only available for http1 and h2 upstreams (h2c and fastcgi are cleartext)");
    }

    @Test
    void h2IsTlsEvenWithoutSettings() throws Exception {
        Config c = ConfigParser.parse("""
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ], protocol: h2 } ]
                """, "test");
        assertThat(c.upstreams().get(0).tls()).isEqualTo(new Upstream.Tls(null, null, null, null));
        assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "again")).isEqualTo(c);
    }
}
