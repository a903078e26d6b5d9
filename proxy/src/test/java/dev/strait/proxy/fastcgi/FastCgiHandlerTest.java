package dev.strait.proxy.fastcgi;

import static dev.strait.proxy.testing.TestServing.ascii;
import static dev.strait.proxy.testing.TestServing.outbound;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.testing.TestServing;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a fastcgi rule is built from config and what it answers before any connection is made. */
class FastCgiHandlerTest {
    private static final String CONFIG = """
            listeners: [ { name: http, address: "127.0.0.1:0" } ]
            upstreams:
              - { name: php, protocol: fastcgi, endpoints: [ "127.0.0.1:9" ] }
              - { name: empty, protocol: fastcgi }
              - { name: web, endpoints: [ "127.0.0.1:3000" ] }
            routes:
              - name: site
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { value: /none } } ]
                    backends: [ { upstream: empty } ]
                    fastcgi: { root: /srv }
                  - backends: [ { upstream: php } ]
                    fastcgi: { root: /srv }
            """;

    private EmbeddedChannel ch;

    @AfterEach
    void nothingLeft() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aFastCgiRuleIsServedByTheFastCgiHandler() {
        Serving serving = TestServing.serving(CONFIG);
        var rule = serving.snapshot().table().find("a", "/index.php", io.netty.handler.codec.http.HttpMethod.GET,
                new io.netty.handler.codec.http.DefaultHttpHeaders());
        assertThat(rule.handler()).isInstanceOf(FastCgiHandler.class);
    }

    @Test
    void http1BackendsGoToTheReverseProxy() {
        String yaml = CONFIG.replace("- backends: [ { upstream: php } ]\n        fastcgi: { root: /srv }",
                "- backends: [ { upstream: web } ]");
        assertThat(yaml).isNotEqualTo(CONFIG);
        Serving serving = TestServing.serving(yaml);
        var rule = serving.snapshot().table().find("a", "/index.php", io.netty.handler.codec.http.HttpMethod.GET,
                new io.netty.handler.codec.http.DefaultHttpHeaders());
        assertThat(rule.handler()).isInstanceOf(dev.strait.proxy.handler.proxy.ProxyHandler.class);
    }

    @Test
    void aPathThatCannotNameAScriptIs404() {
        ch = TestServing.channel(TestServing.serving(CONFIG));
        ch.writeInbound(ascii("GET /a%2F..%2Fb.php HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertThat(outbound(ch)).startsWith("HTTP/1.1 404 Not Found");
    }

    @Test
    void anUpstreamWithoutEndpointsIs503() {
        ch = TestServing.channel(TestServing.serving(CONFIG));
        ch.writeInbound(ascii("GET /none HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertThat(outbound(ch)).startsWith("HTTP/1.1 503 Service Unavailable");
    }
}
