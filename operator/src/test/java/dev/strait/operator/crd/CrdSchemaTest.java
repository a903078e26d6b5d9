package dev.strait.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What users see from the generated CRDs: names, status subresource, columns, validation. */
class CrdSchemaTest {
    private static CustomResourceDefinition crd(String file) throws IOException {
        try (InputStream in = Files.newInputStream(Path.of("../crds", file))) {
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        }
    }

    @Test
    void routeIsNamespacedWithShortNameStatusAndColumns() throws IOException {
        CustomResourceDefinition crd = crd("routes.strait.dev-v1.yml");
        assertThat(crd.getSpec().getGroup()).isEqualTo("strait.dev");
        assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("srt");
        CustomResourceDefinitionVersion v = crd.getSpec().getVersions().get(0);
        assertThat(v.getName()).isEqualTo("v1alpha1");
        assertThat(v.getSubresources().getStatus()).isNotNull();
        assertThat(v.getAdditionalPrinterColumns()).extracting(c -> c.getName())
                .contains("Hosts", "Programmed", "Age");
    }

    @Test
    void routeSchemaCarriesTheChecksTheApiServerCanMake() throws IOException {
        JSONSchemaProps spec = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec");
        // rules are required unless the Route passes TLS through, which a rule of the spec says
        assertThat(spec.getRequired()).containsExactly("hosts");
        assertThat(spec.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.rules) != has(self.tlsPassthrough)",
                        "!has(self.tlsPassthrough) || !self.hosts.exists(h, h == '*')",
                        "!has(self.tlsPassthrough) || !has(self.tls)",
                        "!has(self.hsts) || !has(self.tlsPassthrough)");
        assertThat(spec.getXKubernetesValidations()).extracting(r -> r.getMessage())
                .containsExactly("a Route takes either rules or tlsPassthrough (whose connections go to its backend as"
                                + " they are)",
                        "tlsPassthrough needs host names: a connection is passed through on the name its ClientHello"
                                + " sends (SNI), so * cannot be told apart",
                        "a Route with tlsPassthrough takes no tls: its backend ends TLS with its own certificate",
                        "a Route with tlsPassthrough takes no hsts: it gives no answers to add it to, its backend ends TLS");
        JSONSchemaProps passthrough = spec.getProperties().get("tlsPassthrough");
        assertThat(passthrough.getProperties()).containsOnlyKeys("upstream", "service", "proxyProtocol");
        assertThat(passthrough.getProperties().get("proxyProtocol").getMinimum()).isEqualTo(1.0);
        assertThat(passthrough.getProperties().get("proxyProtocol").getMaximum()).isEqualTo(2.0);
        assertThat(passthrough.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.upstream) != has(self.service)");
        assertThat(passthrough.getProperties().get("service").getRequired()).containsExactlyInAnyOrder("name", "port");
        JSONSchemaProps rule = spec.getProperties().get("rules").getItems().getSchema();
        assertThat(rule.getXKubernetesValidations()).extracting(r -> r.getMessage())
                .containsExactly("a rule takes exactly one action: respond, files, backends or redirect",
                        "pathRewrite only applies to a rule with backends",
                        "responseRewrite only applies to a rule with backends",
                        "responseRewrite applies to HTTP upstreams' answers, not to FastCGI's",
                        "requestBuffering only applies to a rule with backends",
                        "requestBuffering does not apply to FastCGI: its bodies are always read first, up to"
                                + " fastcgi.maxBufferedBody",
                        "responseRate only applies to a rule with backends",
                        "compression does not apply to a redirect: its answer has no body to compress",
                        "jwtAuth and basicAuth both read the Authorization field: a rule takes one of them",
                        "satisfy: any chooses between clientAddresses and basicAuth; the rule needs both");
        JSONSchemaProps path = rule.getProperties().get("matches").getItems().getSchema().getProperties().get("path");
        assertThat(path.getProperties().get("type").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"Exact\"", "\"Prefix\"", "\"RegularExpression\"");
        JSONSchemaProps status = rule.getProperties().get("respond").getProperties().get("status");
        assertThat(status.getMinimum()).isEqualTo(200.0);
        assertThat(status.getMaximum()).isEqualTo(599.0);
        JSONSchemaProps backend = rule.getProperties().get("backends").getItems().getSchema();
        assertThat(backend.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.upstream) != has(self.service)", "!has(self.protocol) || has(self.service)",
                        "!has(self.sessionAffinity) || has(self.service)",
                        "!(has(self.loadBalancer) || has(self.hashOn) || has(self.connectTimeout) || has(self.useClusterIP))"
                                + " || has(self.service)",
                        "!has(self.sessionAffinity) || !(has(self.loadBalancer) || has(self.hashOn))",
                        "!has(self.hashOn) || !has(self.loadBalancer) || self.loadBalancer == 'consistent-hash'");
        assertThat(backend.getProperties().get("loadBalancer").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"round-robin\"", "\"least-request\"", "\"consistent-hash\"");
        assertThat(backend.getProperties().get("connectTimeout").getPattern()).isEqualTo("^[0-9]{1,9}(ms|s|m|h)$");
        assertThat(backend.getProperties().get("protocol").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"http1\"", "\"h2c\"", "\"https\"", "\"h2\"");
        assertThat(rule.getProperties().get("clientAddresses").getXKubernetesValidations()).extracting(r -> r.getMessage())
                .containsExactly("clientAddresses names no addresses: give allow, deny or both");
        assertThat(rule.getProperties().get("basicAuth").getRequired()).containsExactly("secretName");
        JSONSchemaProps forwardAuth = rule.getProperties().get("forwardAuth");
        // Without a backend the check is routed on the request's host: the path must then be given.
        assertThat(forwardAuth.getRequired()).isNullOrEmpty();
        assertThat(forwardAuth.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("!has(self.path) || self.path.startsWith('/')",
                        "has(self.backend) || has(self.path)",
                        "!has(self.signIn) || self.signIn.startsWith('https://') || self.signIn.startsWith('http://')"
                                + " || (self.signIn.startsWith('/') && !self.signIn.startsWith('//'))");
        assertThat(forwardAuth.getProperties().get("path").getPattern()).as("no spaces, no '#'").isEqualTo("^[!-\"$-~]*$");
        assertThat(forwardAuth.getProperties().get("signIn").getMaxLength()).as("bounded for the rule's cost").isEqualTo(2048L);
        assertThat(forwardAuth.getProperties().get("responseHeaders").getItems().getSchema().getPattern())
                .isEqualTo(Patterns.TOKEN);
        assertThat(forwardAuth.getProperties().get("backend")).as("a backend as any other").isEqualTo(backend);
        JSONSchemaProps redirect = rule.getProperties().get("redirect");
        assertThat(redirect.getProperties().get("scheme").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"http\"", "\"https\"");
        assertThat(redirect.getProperties().get("port").getMaximum()).isEqualTo(65535.0);
        assertThat(redirect.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("!has(self.statusCode) || self.statusCode in [301, 302, 303, 307, 308]");
        JSONSchemaProps redirectPath = redirect.getProperties().get("path");
        assertThat(redirectPath.getProperties()).containsOnlyKeys("replaceFullPath", "replacePrefixMatch");
        assertThat(redirectPath.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.replaceFullPath) != has(self.replacePrefixMatch)");
        JSONSchemaProps clientValidation = spec.getProperties().get("tls").getProperties().get("clientValidation");
        assertThat(clientValidation.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.caSecretName) || (has(self.mode) && self.mode == 'optional-no-ca')",
                        "!has(self.ocsp) || self.ocsp == 'off' || has(self.caSecretName)",
                        "!has(self.ocspResponder) || (has(self.ocsp) && self.ocsp != 'off')");
        assertThat(clientValidation.getProperties().get("ocsp").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"off\"", "\"leaf\"", "\"chain\"");
        JSONSchemaProps jwtAuth = rule.getProperties().get("jwtAuth");
        assertThat(jwtAuth.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.jwksUri) || has(self.jwks) || has(self.issuer)",
                        "!(has(self.jwksUri) && has(self.jwks))", "!has(self.refresh) || !has(self.jwks)");
        assertThat(jwtAuth.getProperties().get("jwksUri").getPattern()).isEqualTo("^https?://[!-~]+$");
        assertThat(clientValidation.getProperties().get("mode").getEnum()).extracting(Object::toString)
                .as("spelled as in the config file").containsExactlyInAnyOrder("\"require\"", "\"optional\"", "\"optional-no-ca\"");
        assertThat(clientValidation.getProperties().get("verifyDepth").getMinimum()).isEqualTo(1.0);
        assertThat(clientValidation.getProperties().get("verifyDepth").getMaximum()).isEqualTo(10.0);
        assertThat(spec.getProperties().get("tls").getRequired()).containsExactly("secretName");
        JSONSchemaProps rewrite = rule.getProperties().get("pathRewrite");
        assertThat(rewrite.getProperties()).containsOnlyKeys("replaceFullPath", "replacePrefixMatch", "replaceRegexMatch");
        assertThat(rewrite.getXKubernetesValidations()).extracting(r -> r.getMessage())
                .containsExactly("takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch");
        assertThat(rewrite.getProperties().get("replaceRegexMatch").getRequired())
                .containsExactlyInAnyOrder("pattern", "substitution");
    }

    /**
     * A rule's mirrors: a backend as any other, a share over 0 and at most 100 (a number, so 12.5 is one), a Host as
     * the rule's own. The API server refuses what the proxies' parser refuses: 0 and 150 among them.
     */
    @Test
    void routeMirrorsAreRefusedWhereTheModelRefusesThem() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        JSONSchemaProps mirrors = rule.getProperties().get("mirrors");
        assertThat(mirrors.getMinItems()).isEqualTo(1L);
        assertThat(mirrors.getMaxItems()).as("bounded for the rules' cost").isEqualTo(16L);
        JSONSchemaProps mirror = mirrors.getItems().getSchema();
        assertThat(mirror.getProperties()).containsOnlyKeys("backend", "percent", "hostRewrite", "body");
        assertThat(mirror.getRequired()).containsExactly("backend");
        assertThat(mirror.getProperties().get("backend")).as("a backend as any other")
                .isEqualTo(rule.getProperties().get("backends").getItems().getSchema());
        assertThat(mirror.getProperties().get("hostRewrite").getPattern())
                .isEqualTo(rule.getProperties().get("hostRewrite").getPattern());
        assertThat(mirror.getProperties().get("body").getType()).isEqualTo("boolean");
        assertThat(mirror.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("!has(self.backend) || !has(self.backend.weight)",
                        "!has(self.backend) || !has(self.backend.sessionAffinity)");
        JSONSchemaProps percent = mirror.getProperties().get("percent");
        assertThat(percent.getType()).as("decimals allowed").isEqualTo("number");
        for (double p : new double[] {0, 150, -1, 100.5, 0.001, 12.5, 100}) {
            assertThat(admits(percent, p)).as("percent %s", p).isEqualTo(modelTakes(p));
        }
        assertThat(admits(percent, 0)).isFalse();
        assertThat(admits(percent, 150)).isFalse();
        assertThat(admits(percent, 12.5)).isTrue();
    }

    /**
     * A rule's responseRewrite: the model's lists of {@code { from, to }}, at least one of them, none empty, each bounded;
     * only on a rule with backends (not fastcgi ones). The API server refuses the text the proxies' parser refuses:
     * spaces everywhere, ';' in a cookie's attributes.
     */
    @Test
    void routeResponseRewriteIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        assertThat(rule.getXKubernetesValidations()).extracting(r -> r.getRule()).contains(
                "!has(self.responseRewrite) || has(self.backends)", "!has(self.responseRewrite) || !has(self.fastcgi)");
        JSONSchemaProps rewrite = rule.getProperties().get("responseRewrite");
        assertThat(rewrite.getProperties()).containsOnlyKeys("location", "cookiePath", "cookieDomain");
        assertThat(rewrite.getXKubernetesValidations()).extracting(r -> r.getRule())
                .containsExactly("has(self.location) || has(self.cookiePath) || has(self.cookieDomain)");
        assertThat(rewrite.getXKubernetesValidations()).extracting(r -> r.getMessage())
                .as("the model's words").containsExactly("responseRewrite needs location, cookiePath or cookieDomain");
        for (String list : new String[] {"location", "cookiePath", "cookieDomain"}) {
            JSONSchemaProps entries = rewrite.getProperties().get(list);
            assertThat(entries.getMinItems()).as(list).isEqualTo(1L);
            assertThat(entries.getMaxItems()).as(list).isEqualTo(16L);
            JSONSchemaProps entry = entries.getItems().getSchema();
            assertThat(entry.getProperties()).as(list).containsOnlyKeys("from", "to");
            assertThat(entry.getRequired()).as(list).containsExactlyInAnyOrder("from", "to");
            for (String field : new String[] {"from", "to"}) {
                java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(entry.getProperties().get(field).getPattern());
                for (String value : new String[] {"/", "/app/", "{scheme}://{host}/app/", ".example.com", "", "/a b",
                    "/a;b", "/caf\u00e9", "/a\tb", "http://a.example/?q=1;x=2"}) {
                    assertThat(pattern.matcher(value).find()).as("%s.%s \"%s\"", list, field, value)
                            .isEqualTo(modelTakes(list, field, value));
                }
            }
        }
    }

    /**
     * A rule's requestBuffering: {@code maxBytes} within the model's bounds (1 byte to 1 TiB), {@code memoryBytes}
     * within its own (0 to 64 MiB) and never more than {@code maxBytes} (1 MiB when absent), each checked against the
     * proxies' parser value by value; only on a rule with backends, not fastcgi ones, as the parser says.
     */
    @Test
    void routeRequestBufferingIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        assertThat(rule.getXKubernetesValidations()).extracting(r -> r.getRule()).contains(
                "!has(self.requestBuffering) || has(self.backends)", "!has(self.requestBuffering) || !has(self.fastcgi)");
        JSONSchemaProps buffering = rule.getProperties().get("requestBuffering");
        assertThat(buffering.getProperties()).containsOnlyKeys("maxBytes", "memoryBytes");
        JSONSchemaProps maxBytes = buffering.getProperties().get("maxBytes");
        JSONSchemaProps memoryBytes = buffering.getProperties().get("memoryBytes");
        assertThat(maxBytes.getType()).isEqualTo("integer");
        assertThat(memoryBytes.getType()).isEqualTo("integer");
        for (long bytes : new long[] {-1, 0, 1, 8192, 1 << 20, 64L << 20, (64L << 20) + 1, 1L << 40, (1L << 40) + 1}) {
            assertThat(admits(maxBytes, bytes)).as("maxBytes %s", bytes).isEqualTo(modelTakesBuffer(bytes, null));
            assertThat(admits(memoryBytes, bytes)).as("memoryBytes %s", bytes)
                    .isEqualTo(modelTakesBuffer(1L << 40, bytes));
        }
        // One rule across the two fields, which no bound of either can say; read as written, it refuses what the
        // parser refuses.
        assertThat(buffering.getXKubernetesValidations()).extracting(r -> r.getRule()).containsExactly(
                "!has(self.memoryBytes) || self.memoryBytes <= (has(self.maxBytes) ? self.maxBytes : 1048576)");
        Long[] maxes = {null, 1L, 4096L, 1L << 20, 64L << 20};
        Long[] memories = {null, 0L, 1L, 4096L, 4097L, 1L << 20, (1L << 20) + 1, 64L << 20};
        for (Long max : maxes) {
            for (Long memory : memories) {
                boolean admitted = memory == null || memory <= (max != null ? max : 1048576);
                assertThat(admitted).as("maxBytes %s, memoryBytes %s", max, memory).isEqualTo(modelTakesBuffer(max, memory));
            }
        }
    }

    /** A rule's responseRate: a rate of at least 1 byte a second (required), an after of at least 0, as the parser. */
    @Test
    void routeResponseRateIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        assertThat(rule.getXKubernetesValidations()).extracting(r -> r.getRule())
                .contains("!has(self.responseRate) || has(self.backends)");
        JSONSchemaProps rate = rule.getProperties().get("responseRate");
        assertThat(rate.getProperties()).containsOnlyKeys("bytesPerSecond", "afterBytes");
        assertThat(rate.getRequired()).containsExactly("bytesPerSecond");
        for (long bytes : new long[] {-1, 0, 1, 102400, 1L << 40}) {
            assertThat(admits(rate.getProperties().get("bytesPerSecond"), bytes)).as("bytesPerSecond %s", bytes)
                    .isEqualTo(modelTakesRate(bytes, 0));
            assertThat(admits(rate.getProperties().get("afterBytes"), bytes)).as("afterBytes %s", bytes)
                    .isEqualTo(modelTakesRate(1, bytes));
        }
    }

    /**
     * A rule's compression: every field optional ({@code {}} the defaults), each refused by the API server where the
     * proxies' parser refuses it, value by value; not on a redirect, as the parser says.
     */
    @Test
    void routeCompressionIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        assertThat(rule.getXKubernetesValidations()).extracting(r -> r.getRule())
                .contains("!has(self.compression) || !has(self.redirect)");
        JSONSchemaProps compression = rule.getProperties().get("compression");
        assertThat(compression.getProperties()).containsOnlyKeys("types", "minBytes", "level", "codings");
        assertThat(compression.getRequired()).isNullOrEmpty();
        assertThat(modelTakesCompression("{}")).as("{} is the defaults").isTrue();
        for (long n : new long[] {-1, 0, 1, 5, 9, 10, 1024, 1L << 40}) {
            assertThat(admits(compression.getProperties().get("level"), n)).as("level %s", n)
                    .isEqualTo(modelTakesCompression("{ level: " + n + " }"));
            assertThat(admits(compression.getProperties().get("minBytes"), n)).as("minBytes %s", n)
                    .isEqualTo(modelTakesCompression("{ minBytes: " + n + " }"));
        }
        JSONSchemaProps types = compression.getProperties().get("types");
        assertThat(types.getMinItems()).isEqualTo(1L);
        assertThat(modelTakesCompression("{ types: [] }")).isFalse();
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(types.getItems().getSchema().getPattern());
        for (String value : new String[] {"text/html", "text/*", "application/vnd.ms-fontobject", "image/svg+xml",
            "application/ld+json", "Text/HTML", "x-a_b/c.d", "text", "*/*", "text/", "/html", "text/html; charset=utf-8",
            "text/ html", "text/*html", "text/html/x", "caf\u00e9/x", "", "a".repeat(127) + "/b", "a".repeat(128) + "/b"}) {
            assertThat(pattern.matcher(value).find()).as("types \"%s\"", value)
                    .isEqualTo(modelTakesCompression("{ types: [ %s ] }".formatted(
                            com.fasterxml.jackson.databind.node.TextNode.valueOf(value))));
        }
        JSONSchemaProps codings = compression.getProperties().get("codings");
        assertThat(codings.getMinItems()).isEqualTo(1L);
        assertThat(modelTakesCompression("{ codings: [] }")).isFalse();
        assertThat(codings.getMaxItems()).as("bounded, so the API server can cost the rule")
                .isEqualTo((long) dev.strait.model.Route.Compression.CODINGS.size());
        assertThat(codings.getXKubernetesValidations()).singleElement().satisfies(r ->
                assertThat(r.getRule()).isEqualTo("self.all(c, self.filter(d, d == c).size() == 1)"));
        assertThat(modelTakesCompression("{ codings: [ gzip, br, gzip ] }")).as("each once").isFalse();
        List<String> allowed = codings.getItems().getSchema().getEnum().stream().map(j -> j.asText()).toList();
        for (String value : new String[] {"zstd", "br", "gzip", "deflate", "identity", "GZIP", "x-gzip", "", "br "}) {
            assertThat(allowed.contains(value)).as("codings \"%s\"", value).isEqualTo(modelTakesCompression(
                    "{ codings: [ %s ] }".formatted(com.fasterxml.jackson.databind.node.TextNode.valueOf(value))));
        }
    }

    /** A files rule's precompressed: the codings the proxies' parser takes, each once, checked by the API server. */
    @Test
    void filesPrecompressedTakesWhatTheModelTakes() throws IOException {
        JSONSchemaProps files = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema()
                .getProperties().get("files");
        JSONSchemaProps pre = files.getProperties().get("precompressed");
        assertThat(pre.getMaxItems()).as("bounded, so the API server can cost the rule").isEqualTo(3L);
        assertThat(pre.getXKubernetesValidations()).singleElement().satisfies(r ->
                assertThat(r.getRule()).isEqualTo("self.all(c, self.filter(d, d == c).size() == 1)"));
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(pre.getItems().getSchema().getPattern());
        for (String value : new String[] {"br", "zstd", "gzip", "deflate", "BR", "x-gzip", "", "br "}) {
            boolean model;
            try {
                dev.strait.model.ConfigParser.parse("listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\n"
                        + "routes: [ { name: a, hosts: [ \"*\" ], rules: [ { files: { root: /srv,"
                        + " precompressed: [ " + com.fasterxml.jackson.databind.node.TextNode.valueOf(value) + " ] } } ] } ]\n",
                        "test");
                model = true;
            } catch (dev.strait.model.InvalidConfigException e) {
                model = false;
            }
            assertThat(pattern.matcher(value).find()).as("precompressed \"%s\"", value).isEqualTo(model);
        }
    }

    /**
     * A Route's hsts: every field optional ({@code {}} one year), refused by the API server where the proxies' parser
     * refuses it: a negative max-age, preload without includeSubDomains and a year (an absent maxAgeSeconds is one),
     * beside tlsPassthrough (the rule above).
     */
    @Test
    void routeHstsIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps hsts = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("hsts");
        assertThat(hsts.getProperties()).containsOnlyKeys("maxAgeSeconds", "includeSubDomains", "preload");
        assertThat(hsts.getRequired()).isNullOrEmpty();
        assertThat(hsts.getProperties().get("maxAgeSeconds").getType()).isEqualTo("integer");
        assertThat(hsts.getProperties().get("includeSubDomains").getType()).isEqualTo("boolean");
        assertThat(hsts.getProperties().get("preload").getType()).isEqualTo("boolean");
        assertThat(modelTakesHsts("{}")).as("{} is one year").isTrue();
        for (long n : new long[] {-1, 0, 1, 86400, 31_535_999, 31_536_000, 1L << 40}) {
            assertThat(admits(hsts.getProperties().get("maxAgeSeconds"), n)).as("maxAgeSeconds %s", n)
                    .isEqualTo(modelTakesHsts("{ maxAgeSeconds: " + n + " }"));
        }
        // The rule's reading of preload, for every combination, against the parser's.
        assertThat(hsts.getXKubernetesValidations()).singleElement().satisfies(r -> assertThat(r.getRule()).isEqualTo(
                "!has(self.preload) || !self.preload || (has(self.includeSubDomains) && self.includeSubDomains"
                        + " && (!has(self.maxAgeSeconds) || self.maxAgeSeconds >= 31536000))"));
        for (String preload : new String[] {null, "false", "true"}) {
            for (String sub : new String[] {null, "false", "true"}) {
                for (Long maxAge : new Long[] {null, 0L, 31_535_999L, 31_536_000L, 63_072_000L}) {
                    boolean rule = preload == null || !Boolean.parseBoolean(preload) || (sub != null
                            && Boolean.parseBoolean(sub) && (maxAge == null || maxAge >= 31_536_000));
                    String hstsYaml = "{ " + (preload == null ? "" : "preload: " + preload + ", ")
                            + (sub == null ? "" : "includeSubDomains: " + sub + ", ")
                            + (maxAge == null ? "" : "maxAgeSeconds: " + maxAge) + " }";
                    assertThat(rule).as(hstsYaml).isEqualTo(modelTakesHsts(hstsYaml.replace(",  }", " }")));
                }
            }
        }
    }

    /** Whether the proxies' config parser takes that hsts on a route. */
    private static boolean modelTakesHsts(String hsts) {
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    routes: [ { name: r, hosts: [ "*" ], hsts: %s, rules: [ { respond: { status: 200 } } ] } ]
                    """.formatted(hsts), "hsts");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /** Whether the proxies' config parser takes that compression on a rule that answers itself. */
    private static boolean modelTakesCompression(String compression) {
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    routes: [ { name: r, hosts: [ "*" ], rules: [ { respond: { status: 200 }, compression: %s } ] } ]
                    """.formatted(compression), "compression");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /** Whether the proxies' config parser takes a responseRate of these figures. */
    private static boolean modelTakesRate(long bytesPerSecond, long afterBytes) {
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ] } ]
                    routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ],
                                responseRate: { bytesPerSecond: %d, afterBytes: %d } } ] } ]
                    """.formatted(bytesPerSecond, afterBytes), "responseRate");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /**
     * A Service backend's sessionAffinity: the cookie's domain is refused by the API server where it would change the
     * cookie (a port, a path, '; attr', spaces); what passes the pattern but not the model (an IP address, an empty
     * label) is the Route's error from the translator, so every domain the model takes passes. Its mode is one of
     * the two the proxies know.
     */
    @Test
    void sessionAffinityDomainIsRefusedWhereTheModelRefusesIt() throws IOException {
        JSONSchemaProps rule = crd("routes.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("rules").getItems().getSchema();
        JSONSchemaProps affinity = rule.getProperties().get("backends").getItems().getSchema().getProperties()
                .get("sessionAffinity");
        assertThat(affinity.getProperties()).containsOnlyKeys("cookieName", "path", "maxAge", "sameSite",
                "changeOnFailure", "domain", "secure", "mode");
        assertThat(affinity.getProperties().get("secure").getType()).isEqualTo("boolean");
        java.util.regex.Pattern mode = java.util.regex.Pattern.compile(affinity.getProperties().get("mode").getPattern());
        assertThat(java.util.stream.Stream.of("balanced", "persistent", "Persistent", "sticky", "", "persistent "))
                .as("the modes the proxies know, as they spell them").filteredOn(v -> mode.matcher(v).find())
                .containsExactly(dev.strait.model.Upstream.SetCookie.BALANCED, dev.strait.model.Upstream.SetCookie.PERSISTENT);
        JSONSchemaProps domain = affinity.getProperties().get("domain");
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(domain.getPattern());
        for (String value : new String[] {"example.com", ".example.com", "Shop.Example.COM", "localhost", "a-b.example",
            "xn--caf-dma.example", "a".repeat(63) + ".example"}) {
            assertThat(modelTakesDomain(value)).as("model takes %s", value).isTrue();
            assertThat(pattern.matcher(value).find()).as("schema admits %s", value).isTrue();
        }
        for (String value : new String[] {"", ".", "example.com:8443", "example.com/", "https://example.com",
            "example.com; Secure", "a b.example", "[::1]", "caf\u00e9.example", "-a.example", "example.com."}) {
            assertThat(modelTakesDomain(value)).as("model takes \"%s\"", value).isFalse();
            assertThat(pattern.matcher(value).find()).as("schema admits \"%s\"", value).isFalse();
        }
        assertThat(domain.getMaxLength()).isEqualTo(254L);
    }

    /** Whether the proxies' config parser takes that affinity cookie domain. */
    private static boolean modelTakesDomain(String domain) {
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ], loadBalancer: consistent-hash,
                                   hashOn: { source: cookie, name: sid, setCookie: { domain: %s } } } ]
                    """.formatted(com.fasterxml.jackson.databind.node.TextNode.valueOf(domain)), "domain");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /** Whether the proxies' config parser takes a requestBuffering of these figures (null: left out). */
    private static boolean modelTakesBuffer(Long maxBytes, Long memoryBytes) {
        String buffering = (maxBytes == null ? "" : "maxBytes: " + maxBytes)
                + (maxBytes == null || memoryBytes == null ? "" : ", ")
                + (memoryBytes == null ? "" : "memoryBytes: " + memoryBytes);
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ] } ]
                    routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ], requestBuffering: { %s } } ] } ]
                    """.formatted(buffering), "requestBuffering");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /** Whether the proxies' config parser takes a responseRewrite with that value in that list's field. */
    private static boolean modelTakes(String list, String field, String value) {
        com.fasterxml.jackson.databind.node.ObjectNode entry = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode().put("from", "/").put("to", "/");
        entry.put(field, value);
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ] } ]
                    routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ], responseRewrite: { %s: [ %s ] } } ] } ]
                    """.formatted(list, entry), "responseRewrite");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    /** A number against a schema's bounds, as the API server reads them (OpenAPI v3.0's boolean exclusive bounds). */
    private static boolean admits(JSONSchemaProps schema, double value) {
        Double min = schema.getMinimum();
        Double max = schema.getMaximum();
        boolean aboveMin = min == null || (Boolean.TRUE.equals(schema.getExclusiveMinimum()) ? value > min : value >= min);
        boolean belowMax = max == null || (Boolean.TRUE.equals(schema.getExclusiveMaximum()) ? value < max : value <= max);
        return aboveMin && belowMax;
    }

    /** Whether the proxies' config parser takes a mirror with that share. */
    private static boolean modelTakes(double percent) {
        try {
            dev.strait.model.ConfigParser.parse("""
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    upstreams: [ { name: app, endpoints: [ "127.0.0.1:1" ] } ]
                    routes: [ { name: r, hosts: [ "*" ], rules: [ { respond: {}, mirrors: [ { upstream: app, percent: %s } ] } ] } ]
                    """.formatted(percent), "percent");
            return true;
        } catch (dev.strait.model.InvalidConfigException e) {
            return false;
        }
    }

    @Test
    void upstreamEnumsAreSpelledAsInTheConfigFile() throws IOException {
        JSONSchemaProps spec = crd("upstreams.strait.dev-v1.yml").getSpec().getVersions().get(0).getSchema()
                .getOpenAPIV3Schema().getProperties().get("spec");
        assertThat(spec.getRequired()).containsExactly("service");
        assertThat(spec.getProperties().get("loadBalancer").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"round-robin\"", "\"least-request\"", "\"consistent-hash\"");
        assertThat(spec.getProperties().get("protocol").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"http1\"", "\"h2c\"", "\"h2\"", "\"fastcgi\"");
        JSONSchemaProps hashOn = spec.getProperties().get("hashOn");
        assertThat(hashOn.getProperties().get("source").getEnum()).extracting(Object::toString)
                .containsExactlyInAnyOrder("\"header\"", "\"cookie\"", "\"query\"", "\"uri\"", "\"path\"",
                        "\"client-address\"");
        assertThat(hashOn.getXKubernetesValidations()).extracting(r -> r.getMessage())
                .containsExactly("a header, cookie or query hash needs a name; uri, path and client-address take none");
        assertThat(spec.getProperties().get("panicThreshold").getMaximum()).isEqualTo(100.0);
        assertThat(spec.getProperties().get("pool").getProperties().get("connectTimeout").getPattern())
                .isEqualTo("^[0-9]{1,9}(ms|s|m|h)$");
        assertThat(spec.getProperties().get("tls").getProperties()).as("Secrets in place of PEM")
                .containsOnlyKeys("caSecretName", "serverName", "clientCertificateSecretName", "verifyDepth");
    }
}
