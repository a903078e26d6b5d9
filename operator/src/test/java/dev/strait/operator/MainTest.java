package dev.strait.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.model.Config;
import dev.strait.model.IpBlock;
import dev.strait.model.Route;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operator's own flags that become part of every snapshot. */
class MainTest {
    @Test
    void trustedPeersAreAListOfAddressesAndBlocks() {
        assertThat(Main.trustedPeers(null)).isEqualTo(Config.ForwardedHeaders.DEFAULTS);
        assertThat(Main.trustedPeers(" ")).isEqualTo(Config.ForwardedHeaders.DEFAULTS);
        assertThat(Main.trustedPeers("10.0.0.0/8, 192.0.2.7,,fd00::/8").trustedPeers()).extracting(IpBlock::text)
                .containsExactly("10.0.0.0/8", "192.0.2.7", "fd00::/8");
        assertThatThrownBy(() -> Main.trustedPeers("10.0.0.0/8,lb.internal"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lb.internal");
    }

    @Test
    void proxyProtocolIsTrueOrFalseAndOffByDefault() {
        assertThat(Main.proxyProtocol(null)).isFalse();
        assertThat(Main.proxyProtocol(" ")).isFalse();
        assertThat(Main.proxyProtocol("true")).isTrue();
        assertThat(Main.proxyProtocol("TRUE")).isTrue();
        assertThat(Main.proxyProtocol("false")).isFalse();
        assertThatThrownBy(() -> Main.proxyProtocol("yes"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"yes\"");
    }

    /** A value an option refuses is an error naming the option, whatever reads it. */
    @Test
    void aRefusedValueNamesItsFlag() {
        assertThatThrownBy(() -> Main.flag(java.util.Map.of("proxy-protocol", "yes"), "proxy-protocol", null,
                Main::proxyProtocol)).hasMessage("--proxy-protocol: \"yes\" is neither true nor false");
        assertThatThrownBy(() -> Main.flag(java.util.Map.of("proxy-trusted-peers", "10.0.0.0/8,lb.internal"),
                "proxy-trusted-peers", null, Main::trustedPeers)).hasMessageStartingWith("--proxy-trusted-peers: ")
                .hasMessageContaining("lb.internal");
        assertThatThrownBy(() -> Main.flag(java.util.Map.of("proxy-http-address", "nowhere"), "proxy-http-address",
                "0.0.0.0:8080", dev.strait.model.HostPort::parse)).hasMessageStartingWith("--proxy-http-address: ");
        assertThat(Main.flag(java.util.Map.of(), "proxy-http-address", "0.0.0.0:8080", dev.strait.model.HostPort::parse))
                .isEqualTo(new dev.strait.model.HostPort("0.0.0.0", 8080));
    }

    @Test
    void proxyProtocolIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--proxy-protocol=true"})).containsEntry("proxy-protocol", "true");
        assertThat(Main.options(new String[] {"--proxy-protocol", "false"})).containsEntry("proxy-protocol", "false");
    }

    /** ingress-nginx's ssl-protocols and ssl-ciphers, as flags: checked at start, as a listener's fields are. */
    @Test
    void tlsVersionsAndCiphersAreCheckedAtStart() {
        assertThat(Main.options(new String[] {"--proxy-tls-min-version=1.3", "--proxy-tls-ciphers=A:B"}))
                .containsEntry("proxy-tls-min-version", "1.3").containsEntry("proxy-tls-ciphers", "A:B");
        assertThat(Main.tlsMinVersion("TLSv1.3")).isEqualTo(dev.strait.model.Config.TlsVersion.TLS_1_3);
        assertThatThrownBy(() -> Main.flag(java.util.Map.of("proxy-tls-min-version", "1.1"), "proxy-tls-min-version",
                "1.2", Main::tlsMinVersion)).hasMessage("--proxy-tls-min-version: must be 1.2 or 1.3, got \"1.1\"");
        assertThat(Main.tlsCiphers("ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA,ECDHE-RSA-AES128-GCM-SHA256"))
                .containsExactly("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA");
        assertThat(Main.tlsCiphers(null)).isNull();
        assertThatThrownBy(() -> Main.tlsCiphers("ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES128-GCM-SHA256"))
                .hasMessageStartingWith("\"DHE-RSA-AES128-GCM-SHA256\" is not a suite Strait speaks");
        assertThatThrownBy(() -> Main.tlsCiphers("ECDHE-RSA-AES128-SHA")).hasMessageContaining("no AEAD suite");
        dev.strait.operator.translate.ProxyDefaults both = dev.strait.operator.translate.ProxyDefaults.STANDARD.withTls(
                dev.strait.model.Config.TlsVersion.TLS_1_3, java.util.List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
        assertThatThrownBy(() -> Main.tlsChecked(both)).hasMessageContaining("--proxy-tls-min-version 1.3 speaks no TLS 1.2");
    }

    @Test
    void ocspStaplingIsAnOptionOfItsOwnAndTrueOrFalse() {
        assertThat(Main.options(new String[] {"--proxy-ocsp-stapling=true"})).containsEntry("proxy-ocsp-stapling", "true");
        assertThat(Main.flag(java.util.Map.of(), "proxy-ocsp-stapling", null, Main::trueOrFalse)).isFalse();
        assertThatThrownBy(() -> Main.flag(java.util.Map.of("proxy-ocsp-stapling", "on"), "proxy-ocsp-stapling", null,
                Main::trueOrFalse)).hasMessage("--proxy-ocsp-stapling: \"on\" is neither true nor false");
    }

    @Test
    void clusterDomainIsCheckedAndLowerCasedAndClusterLocalByDefault() {
        assertThat(Main.clusterDomain(null)).isEqualTo("cluster.local");
        assertThat(Main.clusterDomain("corp.internal")).isEqualTo("corp.internal");
        assertThat(Main.clusterDomain(" Corp.Internal ")).isEqualTo("corp.internal");
        assertThat(Main.clusterDomain("k8s-1.corp.example")).isEqualTo("k8s-1.corp.example");
        assertThat(Main.clusterDomain("local")).isEqualTo("local");
        String[][] bad = {
            {"", "it is empty"},
            {" ", "it is empty"},
            {"corp.internal.", "it has a leading or trailing dot; write the domain alone, e.g. corp.internal"},
            {".corp.internal", "it has a leading or trailing dot"},
            {".", "it has a leading or trailing dot"},
            {"corp..internal", "it has an empty label"},
            {"corp_internal", "it has \"corp_internal\", which is no DNS label (1 to 63 of a-z, 0-9 and '-', neither"
                    + " first nor last)"},
            {"-corp.internal", "it has \"-corp\", which is no DNS label"},
            {"corp.internal-", "it has \"internal-\", which is no DNS label"},
            {"svc.cluster.local:53", "it has \"local:53\", which is no DNS label"},
            {"a".repeat(64) + ".internal", "which is no DNS label"},
            {("a".repeat(63) + ".").repeat(4) + "internal", "it is longer than 253 characters"},
        };
        for (String[] c : bad) {
            assertThatThrownBy(() -> Main.clusterDomain(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--cluster-domain \"" + c[0] + "\" is not a DNS domain: ")
                    .hasMessageContaining(c[1]);
        }
    }

    @Test
    void clusterDomainIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--cluster-domain", "corp.internal"}))
                .containsEntry("cluster-domain", "corp.internal");
        assertThat(Main.options(new String[] {"--cluster-domain=corp.internal"}))
                .containsEntry("cluster-domain", "corp.internal");
    }

    /** The control channel's and the webhook's certificates name the Service in the cluster's own domain. */
    @Test
    void certificatesNameTheServiceInTheClusterDomain() {
        assertThat(Main.serviceNames("strait-operator", "strait-system", "cluster.local")).containsExactly(
                "strait-operator.strait-system.svc", "strait-operator.strait-system.svc.cluster.local", "localhost",
                "127.0.0.1");
        assertThat(Main.serviceNames("edge-strait-operator", "edge", "corp.internal")).containsExactly(
                "edge-strait-operator.edge.svc", "edge-strait-operator.edge.svc.corp.internal", "localhost", "127.0.0.1");
    }

    private static final String COLLECTOR = "http://otel-collector.monitoring:4318/v1/traces";

    @Test
    void tracingIsOffWithoutAnEndpoint() {
        assertThat(Main.tracing(Map.of())).isNull();
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", " "))).isNull();
    }

    @Test
    void anEndpointAloneTracesEveryRequestAsStrait() {
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR))).isEqualTo(new Config.Tracing(COLLECTOR));
        // As in the config file: OTLP's path is added to a URL without one.
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", "https://collector:4318")).endpoint())
                .isEqualTo("https://collector:4318/v1/traces");
    }

    @Test
    void tracingSettings() {
        Config.Tracing t = Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-percent", "2.5",
                "proxy-tracing-service-name", "edge-proxy", "proxy-tracing-trust-incoming", "10.0.0.0/8, 192.0.2.7,,fd00::/8"));
        assertThat(t).isEqualTo(new Config.Tracing(COLLECTOR, 2.5, "edge-proxy", true, List.of(IpBlock.parse("10.0.0.0/8"),
                IpBlock.parse("192.0.2.7"), IpBlock.parse("fd00::/8")), Duration.ofSeconds(5)));
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-percent", "0",
                "proxy-tracing-trust-incoming", "FALSE"))).isEqualTo(
                new Config.Tracing(COLLECTOR, 0, "strait", false, List.of(), Duration.ofSeconds(5)));
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-percent", "100",
                "proxy-tracing-trust-incoming", "true"))).isEqualTo(new Config.Tracing(COLLECTOR));
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR)).protocol()).isEqualTo("http/protobuf");
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-protocol", "http/json"))
                .protocol()).isEqualTo("http/json");
        Config.Tracing grpc = Main.tracing(Map.of("proxy-tracing-endpoint", "http://otel-collector.monitoring:4317",
                "proxy-tracing-protocol", "grpc"));
        assertThat(grpc.protocol()).isEqualTo("grpc");
        assertThat(grpc.endpoint()).as("no OTLP/HTTP path added").isEqualTo("http://otel-collector.monitoring:4317");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR,
                "proxy-tracing-protocol", "thrift"))).hasMessageContaining("--proxy-tracing-protocol: must be http/protobuf,"
                + " http/json or grpc");
    }

    /** Each try a CLIENT span of its own doubles the spans sent: off unless asked for. */
    @Test
    void upstreamSpansAreOffUnlessAskedFor() {
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR)).upstreamSpans()).isFalse();
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-upstream-spans", "true")))
                .isEqualTo(new Config.Tracing(COLLECTOR, 100, "strait", true, List.of(), Duration.ofSeconds(5), Map.of(),
                        Config.Tracing.PROTOBUF, true));
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-upstream-spans", " TRUE "))
                .upstreamSpans()).isTrue();
        assertThat(Main.tracing(Map.of("proxy-tracing-endpoint", COLLECTOR, "proxy-tracing-upstream-spans", "false")))
                .isEqualTo(new Config.Tracing(COLLECTOR));
        assertThat(Main.options(new String[] {"--proxy-tracing-upstream-spans=true"}))
                .containsEntry("proxy-tracing-upstream-spans", "true");
    }

    /** Checked as the config file's tracing section is, each error naming its flag. */
    @Test
    void badTracingValuesAreRefusedNamingTheFlag() {
        Object[][] cases = {
            {"proxy-tracing-endpoint", "grpc://otel-collector:4317", "--proxy-tracing-endpoint: \"grpc://otel-collector:4317\""
                    + " must be an http:// or https:// URL"},
            {"proxy-tracing-endpoint", "otel-collector:4318", "--proxy-tracing-endpoint: \"otel-collector:4318\" must be an"
                    + " http:// or https:// URL"},
            {"proxy-tracing-percent", "101", "--proxy-tracing-percent: must be a number from 0 to 100, got 101"},
            {"proxy-tracing-percent", "-1", "--proxy-tracing-percent: must be a number from 0 to 100"},
            {"proxy-tracing-percent", "ten", "--proxy-tracing-percent: must be a number from 0 to 100, got \"ten\""},
            {"proxy-tracing-percent", "NaN", "--proxy-tracing-percent: must be a number from 0 to 100"},
            {"proxy-tracing-service-name", "", "--proxy-tracing-service-name: must be 1 to 256 visible ASCII characters"},
            {"proxy-tracing-trust-incoming", "yes", "--proxy-tracing-trust-incoming: must be true, false or a list of"
                    + " addresses and CIDR blocks, got \"yes\""},
            {"proxy-tracing-trust-incoming", "10.0.0.0/8,lb.internal", "--proxy-tracing-trust-incoming: \"lb.internal\" is"
                    + " not an IP address or CIDR block"},
            {"proxy-tracing-trust-incoming", ",", "--proxy-tracing-trust-incoming: must list at least one item"},
            // The config file's YAML spellings are not taken from a flag, as --proxy-protocol.
            {"proxy-tracing-upstream-spans", "yes", "--proxy-tracing-upstream-spans: must be true or false, got \"yes\""},
            {"proxy-tracing-upstream-spans", "1", "--proxy-tracing-upstream-spans: must be true or false, got \"1\""},
            {"proxy-tracing-upstream-spans", "", "--proxy-tracing-upstream-spans: must be true or false, got \"\""},
        };
        for (Object[] c : cases) {
            Map<String, String> opts = c[0].equals("proxy-tracing-endpoint") ? Map.of((String) c[0], (String) c[1])
                    : Map.of("proxy-tracing-endpoint", COLLECTOR, (String) c[0], (String) c[1]);
            assertThatThrownBy(() -> Main.tracing(opts)).as("%s %s", c[0], c[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith((String) c[2]);
        }
    }

    /** Without an endpoint the other flags would do nothing: refused rather than silently ignored. */
    @Test
    void tracingSettingsWithoutAnEndpointAreRefused() {
        for (String flag : List.of("proxy-tracing-percent", "proxy-tracing-service-name", "proxy-tracing-trust-incoming",
                "proxy-tracing-protocol", "proxy-tracing-upstream-spans")) {
            assertThatThrownBy(() -> Main.tracing(Map.of(flag, "10"))).as(flag)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--" + flag + " needs --proxy-tracing-endpoint");
        }
    }

    @Test
    void tracingFlagsAreOptionsOfTheirOwn() {
        assertThat(Main.options(new String[] {"--proxy-tracing-endpoint=" + COLLECTOR, "--proxy-tracing-percent", "10",
                "--proxy-tracing-service-name", "edge", "--proxy-tracing-trust-incoming=false"}))
                .containsEntry("proxy-tracing-endpoint", COLLECTOR).containsEntry("proxy-tracing-percent", "10")
                .containsEntry("proxy-tracing-service-name", "edge").containsEntry("proxy-tracing-trust-incoming", "false");
    }

    /** ingress-nginx's use-gzip is the controller's (its ConfigMap's), off by default: so is --ingress-compression. */
    @Test
    void ingressCompressionIsOffByDefault() {
        assertThat(Main.ingressCompression(Map.of())).isNull();
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "false"))).isNull();
        assertThat(Main.ingressCompression(Map.of("ingress-compression", " "))).isNull();
    }

    @Test
    void ingressCompressionSettings() {
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "true"))).isEqualTo(Route.Compression.DEFAULTS);
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "TRUE", "ingress-compression-level", " 5 ",
                "ingress-compression-min-bytes", "256", "ingress-compression-types", "application/json, Text/* ,,")))
                .isEqualTo(new Route.Compression(List.of("application/json", "text/*"), 256, 5));
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "true", "ingress-compression-min-bytes", "0",
                "ingress-compression-level", "9"))).isEqualTo(new Route.Compression(Route.Compression.DEFAULT_TYPES, 0, 9));
    }

    /** The model's zstd then gzip unless listed; brotli (ingress-nginx's enable-brotli) only by name, in list order. */
    @Test
    void ingressCompressionCodings() {
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "true")).codings()).containsExactly("zstd", "gzip");
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "true",
                "ingress-compression-codings", " br, zstd ,gzip")).codings()).containsExactly("br", "zstd", "gzip");
        assertThat(Main.ingressCompression(Map.of("ingress-compression", "true",
                "ingress-compression-codings", "gzip")).codings()).containsExactly("gzip");
    }

    /** Checked as a rule's compression is in the config file, each error naming its flag. */
    @Test
    void badIngressCompressionValuesAreRefusedNamingTheFlag() {
        String[][] cases = {
            {"ingress-compression", "yes", "--ingress-compression: \"yes\" is neither true nor false"},
            {"ingress-compression-level", "0", "--ingress-compression-level: must be a whole number 1..9, got 0"},
            {"ingress-compression-level", "10", "--ingress-compression-level: must be a whole number 1..9, got 10"},
            {"ingress-compression-level", "fast", "--ingress-compression-level: must be a whole number 1..9, got \"fast\""},
            {"ingress-compression-min-bytes", "-1", "--ingress-compression-min-bytes: must be a whole number of bytes, got -1"},
            {"ingress-compression-min-bytes", "1k", "--ingress-compression-min-bytes: must be a whole number of bytes, got"
                    + " \"1k\""},
            {"ingress-compression-types", "text/html,text", "--ingress-compression-types: must be a media type such as"
                    + " text/html, or type/* such as text/*, got \"text\""},
            {"ingress-compression-types", ",", "--ingress-compression-types: must list at least one item"},
            {"ingress-compression-codings", "zstd,deflate", "--ingress-compression-codings: must be zstd, br or gzip, got"
                    + " \"deflate\""},
            {"ingress-compression-codings", "gzip,br,gzip", "--ingress-compression-codings: names a coding twice:"
                    + " [gzip, br, gzip]"},
            {"ingress-compression-codings", "", "--ingress-compression-codings: must list at least one item"},
        };
        for (String[] c : cases) {
            Map<String, String> opts = c[0].equals("ingress-compression") ? Map.of(c[0], c[1])
                    : Map.of("ingress-compression", "true", c[0], c[1]);
            assertThatThrownBy(() -> Main.ingressCompression(opts)).as("%s %s", c[0], c[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(c[2]);
        }
        // Every refused value is said, each with its own flag.
        assertThatThrownBy(() -> Main.ingressCompression(Map.of("ingress-compression", "true", "ingress-compression-level",
                "0", "ingress-compression-min-bytes", "-1"))).hasMessageContaining("--ingress-compression-level: ")
                .hasMessageContaining("--ingress-compression-min-bytes: ");
    }

    @Test
    void ingressCompressionSettingsWithoutItAreRefused() {
        for (String flag : List.of("ingress-compression-level", "ingress-compression-min-bytes", "ingress-compression-types",
                "ingress-compression-codings")) {
            for (Map<String, String> opts : List.of(Map.of(flag, "5"), Map.of("ingress-compression", "false", flag, "5"))) {
                assertThatThrownBy(() -> Main.ingressCompression(opts)).as("%s", opts)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("--" + flag + " needs --ingress-compression true");
            }
        }
    }

    @Test
    void ingressCompressionFlagsAreOptionsOfTheirOwn() {
        assertThat(Main.options(new String[] {"--ingress-compression=true", "--ingress-compression-level", "5",
                "--ingress-compression-min-bytes", "256", "--ingress-compression-types=text/html,text/*",
                "--ingress-compression-codings", "br,gzip"}))
                .containsEntry("ingress-compression", "true").containsEntry("ingress-compression-level", "5")
                .containsEntry("ingress-compression-min-bytes", "256")
                .containsEntry("ingress-compression-types", "text/html,text/*")
                .containsEntry("ingress-compression-codings", "br,gzip");
    }

    /** ingress-nginx sends HSTS on every host with TLS by default (hsts "true"): so does Main without the flag. */
    @Test
    void ingressHstsIsIngressNginxsByDefault() {
        Route.Hsts year = new Route.Hsts(31_536_000, true, false);
        assertThat(Main.ingressHsts(Map.of())).isEqualTo(year).isEqualTo(dev.strait.operator.translate.ProxyDefaults.INGRESS_HSTS)
                .isEqualTo(dev.strait.operator.translate.ProxyDefaults.STANDARD.ingressHsts());
        assertThat(Main.ingressHsts(Map.of()).value()).isEqualTo("max-age=31536000; includeSubDomains");
        assertThat(Main.ingressHsts(Map.of("ingress-hsts", Main.INGRESS_HSTS))).isEqualTo(year);
    }

    @Test
    void ingressHstsOff() {
        for (String off : List.of("off", "OFF", " Off ")) {
            assertThat(Main.ingressHsts(Map.of("ingress-hsts", off))).as(off).isNull();
        }
    }

    /** Written as the field is: directive names in any case and order, spaces around ";", the quoted max-age. */
    @Test
    void ingressHstsValues() {
        String[][] cases = {
            {"max-age=63072000; includeSubDomains; preload", "max-age=63072000; includeSubDomains; preload"},
            {"MAX-AGE=31536000;INCLUDESUBDOMAINS ;  Preload", "max-age=31536000; includeSubDomains; preload"},
            {"preload; includeSubDomains; max-age=31536000", "max-age=31536000; includeSubDomains; preload"},
            {"max-age=0", "max-age=0"},
            {" max-age = 300 ; ", "max-age=300"},
            {"max-age=\"86400\"; includeSubDomains", "max-age=86400; includeSubDomains"},
        };
        for (String[] c : cases) {
            assertThat(Main.ingressHsts(Map.of("ingress-hsts", c[0]))).as(c[0]).extracting(Route.Hsts::value)
                    .isEqualTo(c[1]);
        }
    }

    /** Checked as a route's hsts is in the config file (preload needs subdomains and a year), the error naming the flag. */
    @Test
    void badIngressHstsValuesAreRefusedNamingTheFlag() {
        String preload = "--ingress-hsts: preload needs includeSubDomains: true and maxAgeSeconds of at least 31536000"
                + " (one year), as the browsers' preload list requires";
        String[][] cases = {
            {"max-age=31536000; preload", preload},
            {"max-age=86400; includeSubDomains; preload", preload},
            {"max-age=-1", "--ingress-hsts: max-age must be a whole number of seconds (0 tells browsers to forget the host),"
                + " got -1"},
            {"max-age=1y", "--ingress-hsts: max-age must be a whole number of seconds (0 tells browsers to forget the host),"
                + " got \"1y\""},
            {"max-age=", "--ingress-hsts: max-age must be a whole number of seconds"},
            {"max-age", "--ingress-hsts: max-age needs a number of seconds: max-age=31536000"},
            {"max-age=60; max-age=70", "--ingress-hsts: max-age is given twice"},
            {"max-age=60; preload=true", "--ingress-hsts: preload takes no value, got \"preload=true\""},
            {"max-age=60; includeSubdomain", "--ingress-hsts: \"includeSubdomain\" is no directive of"
                + " Strict-Transport-Security: expected max-age=N, includeSubDomains or preload (or off for none)"},
            {"includeSubDomains", "--ingress-hsts: must be off or a Strict-Transport-Security value with max-age, such as"
                + " \"max-age=31536000; includeSubDomains\", got \"includeSubDomains\""},
            {"", "--ingress-hsts: must be off or a Strict-Transport-Security value with max-age"},
            {"true", "--ingress-hsts: \"true\" is no directive of Strict-Transport-Security"},
            {"false", "--ingress-hsts: \"false\" is no directive of Strict-Transport-Security"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> Main.ingressHsts(Map.of("ingress-hsts", c[0]))).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(c[1]);
        }
    }

    @Test
    void ingressHstsIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--ingress-hsts=max-age=60; includeSubDomains"}))
                .containsEntry("ingress-hsts", "max-age=60; includeSubDomains");
        assertThat(Main.options(new String[] {"--ingress-hsts", "off"})).containsEntry("ingress-hsts", "off");
    }

    /** ingress-nginx's --default-ssl-certificate: NAMESPACE/NAME, none when not given or empty (its own default). */
    @Test
    void defaultSslCertificateIsNamespaceSlashName() {
        assertThat(Main.defaultCertificate(Map.of())).isNull();
        assertThat(Main.defaultCertificate(Map.of("default-ssl-certificate", " "))).isNull();
        assertThat(Main.defaultCertificate(Map.of("default-ssl-certificate", "ingress-nginx/wildcard-tls")))
                .isEqualTo(new dev.strait.operator.translate.ProxyDefaults.SecretRef("ingress-nginx", "wildcard-tls"));
        assertThat(Main.defaultCertificate(Map.of("default-ssl-certificate", " certs/apps.example.com ")))
                .hasToString("certs/apps.example.com");
    }

    /** Anything else stops the operator (exit status 2), the error naming the flag and saying what is wrong. */
    @Test
    void aDefaultSslCertificateThatIsNoSecretNameIsRefused() {
        String[][] cases = {
            {"wildcard-tls", "--default-ssl-certificate: \"wildcard-tls\" is not NAMESPACE/NAME"},
            {"a/b/c", "--default-ssl-certificate: \"a/b/c\" is not NAMESPACE/NAME"},
            {"/wildcard-tls", "--default-ssl-certificate: \"/wildcard-tls\": \"\" is no namespace name"},
            {"certs/", "--default-ssl-certificate: \"certs/\": \"\" is no Secret name"},
            {"Certs/wildcard", "--default-ssl-certificate: \"Certs/wildcard\": \"Certs\" is no namespace name"},
            {"certs/wild_card", "--default-ssl-certificate: \"certs/wild_card\": \"wild_card\" is no Secret name"},
            {"certs.x/wildcard", "--default-ssl-certificate: \"certs.x/wildcard\": \"certs.x\" is no namespace name"},
            {"certs/" + "a".repeat(254), "--default-ssl-certificate: \"certs/aaa"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> Main.defaultCertificate(Map.of("default-ssl-certificate", c[0]))).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(c[1]);
        }
    }

    /** Not given, the proxies' own default (256 MiB), which snapshots leave out: installs keep their config versions. */
    @Test
    void requestBodyFilesAreTheProxiesDefaultsUnlessGiven() {
        assertThat(Main.requestBodyFiles(null)).isEqualTo(Config.RequestBodyFiles.DEFAULTS);
        assertThat(Main.requestBodyFiles("268435456")).isEqualTo(Config.RequestBodyFiles.DEFAULTS);
        assertThat(Main.requestBodyFiles(" 1073741824 ")).isEqualTo(new Config.RequestBodyFiles(null, 1L << 30));
        assertThat(Main.requestBodyFiles("0")).as("no files").isEqualTo(new Config.RequestBodyFiles(null, 0));
        assertThat(Main.requestBodyFiles(String.valueOf(Long.MAX_VALUE)).maxBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(Main.flag(Map.of(), "proxy-request-body-files-max-bytes", null, Main::requestBodyFiles))
                .isEqualTo(Config.RequestBodyFiles.DEFAULTS);
    }

    /** Anything but a whole number of bytes, 0 or more, stops the operator (exit status 2), naming the flag. */
    @Test
    void badRequestBodyFileBudgetsAreRefusedNamingTheFlag() {
        for (String bad : List.of("", " ", "-1", "256Mi", "1.5", "1e9", "0x10", "+5", "9223372036854775808", "lots")) {
            assertThatThrownBy(() -> Main.flag(Map.of("proxy-request-body-files-max-bytes", bad),
                    "proxy-request-body-files-max-bytes", null, Main::requestBodyFiles)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--proxy-request-body-files-max-bytes: must be a whole number of bytes, 0 or more"
                            + " (0: no files), got \"" + bad + "\"");
        }
    }

    @Test
    void requestBodyFileBudgetIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--proxy-request-body-files-max-bytes=0"}))
                .containsEntry("proxy-request-body-files-max-bytes", "0");
        assertThat(Main.options(new String[] {"--proxy-request-body-files-max-bytes", "1073741824"}))
                .containsEntry("proxy-request-body-files-max-bytes", "1073741824");
    }

    @Test
    void defaultSslCertificateIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--default-ssl-certificate=certs/wildcard"}))
                .containsEntry("default-ssl-certificate", "certs/wildcard");
        assertThat(Main.options(new String[] {"--default-ssl-certificate", "certs/wildcard"}))
                .containsEntry("default-ssl-certificate", "certs/wildcard");
    }
}
