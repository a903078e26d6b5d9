package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests a front proxy must never forward, because a server behind it could read them differently
 * (request smuggling, RFC 9112 6.3 and 11.2), or because they are simply malformed. Each is sent on
 * its own raw connection to the real proxy in front of a real upstream; the proxy must answer with the
 * status given and close the connection, and the upstream must not see a byte of it.
 *
 * <p>The corpus is the list in {@link #refused()}; add a case there when a new trick is published.
 */
class SmugglingCorpusTest {
    private static final String API = "POST /api/x HTTP/1.1\r\nHost: example.com\r\n";
    private static final String GET = "GET /api/x HTTP/1.1\r\nHost: example.com\r\n";

    private static ProxyHarness proxy;
    private static TestUpstream upstream;

    @BeforeAll
    static void start() throws Exception {
        proxy = new ProxyHarness();
        upstream = proxy.upstream(TestUpstream.echo());
        proxy.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ example.com ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api/ } } ]
                        backends: [ { upstream: app } ]
                      - respond: { body: "site\\n" }
                  - name: other
                    hosts: [ other.example ]
                    rules:
                      - respond: { body: "other\\n" }
                """.formatted(upstream.endpoint()));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
    }

    static Stream<Arguments> refused() {
        List<Arguments> c = new ArrayList<>();
        // ---- message length: Content-Length and Transfer-Encoding (RFC 9112 6.1-6.3)
        c.add(refuse("two different Content-Lengths", 400, API + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"));
        c.add(refuse("two equal Content-Lengths", 400, API + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello"));
        c.add(refuse("Content-Length list", 400, API + "Content-Length: 5, 5\r\n\r\nhello"));
        c.add(refuse("Content-Length with Transfer-Encoding (CL.TE)", 400,
                API + "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG"));
        c.add(refuse("Transfer-Encoding with Content-Length (TE.CL)", 400,
                API + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n"));
        c.add(refuse("chunked twice in one value", 400, API + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("two Transfer-Encoding fields", 400,
                API + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("chunked not the final coding", 400, API + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"));
        c.add(refuse("an unknown coding before chunked", 501, API + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("identity coding", 501, API + "Transfer-Encoding: identity\r\n\r\n"));
        c.add(refuse("a look-alike coding", 501, API + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("chunked with a parameter", 501, API + "Transfer-Encoding: chunked;q=1\r\n\r\n0\r\n\r\n"));
        c.add(refuse("an empty Transfer-Encoding", 400, API + "Transfer-Encoding: \r\n\r\n"));
        c.add(refuse("Transfer-Encoding in HTTP/1.0", 400,
                "POST /api/x HTTP/1.0\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("a space before the colon of Transfer-Encoding", 400,
                API + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"));
        c.add(refuse("a space before the colon of Content-Length", 400, API + "Content-Length : 5\r\n\r\nhello"));
        c.add(refuse("a tab before the colon", 400, API + "Content-Length\t: 5\r\n\r\nhello"));
        c.add(refuse("Content-Length not a number", 400, API + "Content-Length: abc\r\n\r\n"));
        c.add(refuse("Content-Length negative", 400, API + "Content-Length: -1\r\n\r\n"));
        c.add(refuse("Content-Length with a plus sign", 400, API + "Content-Length: +5\r\n\r\nhello"));
        c.add(refuse("Content-Length in hex", 400, API + "Content-Length: 0x5\r\n\r\nhello"));
        c.add(refuse("Content-Length with inner space", 400, API + "Content-Length: 5 5\r\n\r\nhello"));
        c.add(refuse("Content-Length past 2^63", 400, API + "Content-Length: 99999999999999999999\r\n\r\n"));
        c.add(refuse("Transfer-Encoding folded onto the next line", 400,
                API + "Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"));
        // ---- field syntax (RFC 9110 5, RFC 9112 5)
        c.add(refuse("obs-fold continuation line", 400, GET + "X-A: a\r\n b\r\n\r\n"));
        c.add(refuse("obs-fold with a tab", 400, GET + "X-A: a\r\n\tb\r\n\r\n"));
        c.add(refuse("a bare LF ending a header line", 400, GET + "X-A: a\nX-B: b\r\n\r\n"));
        c.add(refuse("bare LF line endings throughout", 400, "GET /api/x HTTP/1.1\nHost: example.com\n\n"));
        c.add(refuse("a bare LF ending the request line", 400, "GET /api/x HTTP/1.1\nHost: example.com\r\n\r\n"));
        c.add(refuse("a bare CR inside a value", 400, GET + "X-A: a\rb\r\n\r\n"));
        c.add(refuse("a bare CR ending a header line", 400, GET + "X-A: a\rX-B: b\r\n\r\n"));
        c.add(refuse("NUL in a value", 400, GET + "X-A: a\0b\r\n\r\n"));
        c.add(refuse("NUL in a name", 400, GET + "X-\0A: a\r\n\r\n"));
        c.add(refuse("a control character in a value", 400, GET + "X-A: a\u0001b\r\n\r\n"));
        c.add(refuse("DEL in a value", 400, GET + "X-A: a\u007fb\r\n\r\n"));
        c.add(refuse("an escape sequence in a value", 400, GET + "X-A: \u001b[31mred\r\n\r\n"));
        c.add(refuse("a separator in a name", 400, GET + "X(A): 1\r\n\r\n"));
        c.add(refuse("a space inside a name", 400, GET + "X A: 1\r\n\r\n"));
        c.add(refuse("an empty name", 400, GET + ": 1\r\n\r\n"));
        c.add(refuse("a line without a colon", 400, GET + "X-A 1\r\n\r\n"));
        c.add(refuse("a non-ASCII byte in a name", 400, GET + "X-\u00e9: 1\r\n\r\n"));
        c.add(refuse("a header line starting with whitespace", 400, GET + " X-A: 1\r\n\r\n"));
        // ---- Host (RFC 9112 3.2)
        c.add(refuse("no Host in HTTP/1.1", 400, "GET /api/x HTTP/1.1\r\nX-A: 1\r\n\r\n"));
        c.add(refuse("two Host fields", 400, GET + "Host: other.example\r\n\r\n"));
        c.add(refuse("a Host list", 400, "GET /api/x HTTP/1.1\r\nHost: example.com, other.example\r\n\r\n"));
        c.add(refuse("a space inside Host", 400, "GET /api/x HTTP/1.1\r\nHost: exam ple.com\r\n\r\n"));
        c.add(refuse("a path in Host", 400, "GET /api/x HTTP/1.1\r\nHost: example.com/api\r\n\r\n"));
        c.add(refuse("userinfo in Host", 400, "GET /api/x HTTP/1.1\r\nHost: a@example.com\r\n\r\n"));
        c.add(refuse("a non-numeric Host port", 400, "GET /api/x HTTP/1.1\r\nHost: example.com:8o\r\n\r\n"));
        // ---- request line (RFC 9112 3)
        c.add(refuse("no version (HTTP/0.9)", 400, "GET /api/x\r\n\r\n"));
        c.add(refuse("a lower-case version", 400, "GET /api/x http/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a three-digit version", 400, "GET /api/x HTTP/1.10\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a leading zero in the version", 400, "GET /api/x HTTP/01.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("HTTP/2.0 in an HTTP/1 request line", 505, "GET /api/x HTTP/2.0\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("HTTP/3.0", 505, "GET /api/x HTTP/3.0\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("two spaces after the method", 400, "GET  /api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a trailing space after the version", 400, "GET /api/x HTTP/1.1 \r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a tab between method and target", 400, "GET\t/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a space inside the target", 400, "GET /api/x y HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a control character in the target", 400,
                "GET /api/x\u0001y HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("NUL in the target", 400, "GET /api/x\0 HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a fragment in the target", 400, "GET /api/x#frag HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a relative target", 400, "GET api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("a separator in the method", 400, "G(T /api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target with another scheme", 400,
                "GET ftp://example.com/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target without authority", 400, "GET http:///api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target whose scheme is a prefix of http", 400,
                "GET ht://example.com/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target whose authority has junk after an IP literal", 400,
                "GET http://[::1]junk/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target whose IP literal is not one", 400,
                "GET http://[zz]/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("an absolute target with a port too long", 400,
                "GET http://example.com:99999999/api/x HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        c.add(refuse("trailers over the header block limit get 431 like a head", 431, API
                + "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-T: " + "a".repeat(40_000) + "\r\n\r\n"));
        c.add(refuse("CONNECT (not a forward proxy)", 501, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n"));
        // ---- chunked bodies (RFC 9112 7.1)
        c.add(refuse("a chunk size that is not hex", 400, API + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a negative chunk size", 400, API + "Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a chunk size past 2^63", 400,
                API + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a chunk size with a leading space", 400, API + "Transfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a chunk size with a 0x prefix", 400, API + "Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a chunk size ended by a bare LF", 400, API + "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n"));
        c.add(refuse("chunk data longer than its size", 400, API + "Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a bare CR in a chunk extension", 400,
                API + "Transfer-Encoding: chunked\r\n\r\n5;a=\rb\r\nhello\r\n0\r\n\r\n"));
        c.add(refuse("a trailer that sets Content-Length", 400,
                API + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n"));
        c.add(refuse("a trailer that sets Transfer-Encoding", 400,
                API + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n"));
        c.add(refuse("a trailer that sets Host", 400,
                API + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nHost: other.example\r\n\r\n"));
        return c.stream();
    }

    private static Arguments refuse(String name, int status, String raw) {
        return Arguments.of(name, status, raw);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("refused")
    void refusedClosedAndNeverForwarded(String name, int status, String raw) throws IOException {
        int before = upstream.requests();
        int connectionsBefore = upstream.connections();
        try (RawClient c = new RawClient(proxy.address())) {
            RawClient.Response r = c.send(raw).read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(r.header("connection")).as(name).isEqualTo("close");
            assertThat(c.closedByServer()).as(name + ": connection closed").isTrue();
        }
        // A well-formed request after it: the upstream must see that one only. What a bug forwarded
        // would have been written before the refusal, so it would be counted by now.
        try (RawClient c = new RawClient(proxy.address())) {
            assertThat(c.send("GET /api/after HTTP/1.1\r\nHost: example.com\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).as(name + ": requests the upstream saw").isEqualTo(before + 1);
        assertThat(upstream.connections() - connectionsBefore).as(name + ": upstream connections").isLessThanOrEqualTo(1);
    }

    // ---- what strictness must not break

    @org.junit.jupiter.api.Test
    void absoluteFormRoutesOnItsAuthority() throws IOException {
        try (RawClient c = new RawClient(proxy.address())) {
            RawClient.Response r = c.send("GET http://other.example/x HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
            assertThat(r.text()).isEqualTo("other\n");
        }
    }

    @org.junit.jupiter.api.Test
    void validOdditiesAreForwarded() throws IOException {
        try (RawClient c = new RawClient(proxy.address())) {
            // Empty lines before the request line, upper-case coding, chunk extensions, a trailer, obs-text.
            RawClient.Response r = c.send("\r\n" + API + "Transfer-Encoding: CHUNKED\r\nX-Name: caf\u00e9\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n0\r\nX-Checksum: 1\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(upstream.last().text()).isEqualTo("hello");
            assertThat(upstream.last().header("x-name")).isEqualTo("caf\u00e9");
            // And the connection is still good for a second, pipelined pair.
            r = c.send(GET + "\r\n" + API + "Content-Length: 2\r\n\r\nok").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(upstream.last().text()).isEqualTo("ok");
        }
    }

    @org.junit.jupiter.api.Test
    void headerNamesWithUnderscoresAreDropped() throws IOException {
        try (RawClient c = new RawClient(proxy.address())) {
            assertThat(c.send(GET + "X_Forwarded_For: 6.6.6.6\r\nX-Kept: 1\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(upstream.last().header("x-kept")).isEqualTo("1");
        assertThat(upstream.last().headers().names()).noneMatch(n -> n.contains("_"));
    }
}
