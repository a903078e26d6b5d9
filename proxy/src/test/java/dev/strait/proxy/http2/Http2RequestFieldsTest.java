package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 request fields get the checks HTTP/1.1's parser makes: names with '_' dropped or refused
 * ({@code limits.underscoreHeaders}), trailers that would frame, route or authorise refused, and a
 * cookie split in crumbs counted as the one field it is on HTTP/1.1.
 */
class Http2RequestFieldsTest {
    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private TestUpstream start(TestUpstream.Behaviour b, String limits) throws Exception {
        TestUpstream up = proxy.upstream(b);
        proxy.start("""
                workers: 1
                limits: { %s }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(limits, up.endpoint()));
        return up;
    }

    private static byte[] block(byte[] start, String... fields) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(start);
        for (int i = 0; i < fields.length; i += 2) {
            literal(b, fields[i], fields[i + 1], false);
        }
        return b.toByteArray();
    }

    private static String status(RawH2 c, int stream) throws Exception {
        for (RawH2.Frame f; (f = c.next()) != null; ) {
            if (f.stream() == stream && f.type() == HEADERS) {
                return c.headers(f).status().toString();
            }
            if (f.stream() == stream && f.type() == RST_STREAM) {
                return "reset " + f.errorCode();
            }
        }
        return "closed";
    }

    @Test
    void underscoreNamesAreDroppedByDefault() throws Exception {
        TestUpstream up = start(TestUpstream.reply(200, "ok"), "");
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block(GET, "x_forwarded_for", "6.6.6.6", "x-kept", "1")));
            assertThat(status(c, 1)).isEqualTo("200");
        }
        assertThat(up.last().header("x-kept")).isEqualTo("1");
        assertThat(up.last().headers().names()).noneMatch(n -> n.contains("_"));
    }

    @Test
    void underscoreNamesAreRefusedWhenConfigured() throws Exception {
        TestUpstream up = start(TestUpstream.reply(200, "ok"), "underscoreHeaders: reject");
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block(GET, "x_real_ip", "6.6.6.6")));
            assertThat(status(c, 1)).isEqualTo("400");
        }
        assertThat(up.requests()).isZero();
    }

    @Test
    void cookieCrumbsCountAsOneField() throws Exception {
        TestUpstream up = start(TestUpstream.reply(200, "ok"), "maxHeaderCount: 10");
        String[] fields = new String[2 * 30];
        for (int i = 0; i < 30; i++) {
            fields[2 * i] = "cookie";
            fields[2 * i + 1] = "c" + i + "=v";
        }
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block(GET, fields)));
            assertThat(status(c, 1)).isEqualTo("200");
        }
        assertThat(up.last().header("cookie")).startsWith("c0=v; c1=v").endsWith("c29=v");
    }

    @Test
    void aMissingSchemeOrAHostOtherThanTheAuthorityIsMalformed() throws Exception {
        TestUpstream up = start(TestUpstream.reply(200, "ok"), "");
        byte[] noScheme = {(byte) 0x82, (byte) 0x84, 0x01, 0x01, 'a'}; // :method GET, :path /, :authority a
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, noScheme));
            assertThat(status(c, 1)).isIn("400", "reset " + PROTOCOL_ERROR);
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, block(GET, "host", "b")));
            assertThat(status(c, 3)).isIn("400", "reset " + PROTOCOL_ERROR);
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 5, block(GET, "host", "A")));
            assertThat(status(c, 5)).as("the same authority, in another case").isEqualTo("200");
        }
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void aTrailerThatWouldRouteOrAuthoriseIsRefused() throws Exception {
        TestUpstream up = start(TestUpstream.reply(200, "ok"), "");
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS, 1, POST));
            c.send(frame(DATA, 0, 1, "hello".getBytes(StandardCharsets.US_ASCII)));
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block(new byte[0], "authorization", "Bearer admin")));
            assertThat(status(c, 1)).isIn("400", "reset " + PROTOCOL_ERROR);
            // A harmless trailer still goes through on the same connection.
            c.send(frame(HEADERS, END_HEADERS, 3, POST));
            c.send(frame(DATA, 0, 3, "hello".getBytes(StandardCharsets.US_ASCII)));
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, block(new byte[0], "x-checksum", "abc")));
            assertThat(status(c, 3)).isEqualTo("200");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> up.requests() == 1);
        assertThat(up.last().text()).isEqualTo("hello");
        assertThat(up.seen()).noneMatch(s -> "Bearer admin".equals(s.header("authorization")));
    }
}
