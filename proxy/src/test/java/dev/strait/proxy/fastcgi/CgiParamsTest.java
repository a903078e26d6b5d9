package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CGI params a request carries: the computed ones, HTTP_* from headers, and the rule's overrides. */
class CgiParamsTest {

    /** Only what CgiParams reads. */
    private record Req(HttpRequest request, String path, String query, String scheme, String host,
                       SocketAddress remoteAddress, SocketAddress localAddress, SocketAddress clientAddress)
            implements Exchange {
        public boolean isHead() { return false; }
        public ByteBufAllocator alloc() { return PooledByteBufAllocator.DEFAULT; }
        public void sendPreEncoded(byte[] head, byte[] body) { throw new UnsupportedOperationException(); }
        public void sendPreEncoded(byte[] head, ByteBuf body) { throw new UnsupportedOperationException(); }
        public void sendFile(byte[] head, java.nio.channels.FileChannel file, long offset, long length) { throw new UnsupportedOperationException(); }
        public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) { throw new UnsupportedOperationException(); }
        public void sendError(HttpResponseStatus status) { throw new UnsupportedOperationException(); }
        public EventLoop eventLoop() { throw new UnsupportedOperationException(); }
        public boolean hasBody() { return false; }
        public void receiveBody(BodyReceiver receiver) { }
        public void pauseReading() { }
        public void resumeReading() { }
        public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) { }
        public void sendBodyPart(ByteBuf data) { data.release(); }
        public void endResponse(HttpHeaders trailers) { }
        public boolean isWritable() { return true; }
        public void onWritable(Runnable task) { task.run(); }
        public void onCancel(Runnable task) { }
        public void abort() { }
        public void holdFlush() { }
        public void flush() { }
        public void switchProtocols(HttpHeaders headers, io.netty.channel.ChannelHandler tunnel) {
            throw new UnsupportedOperationException();
        }
    }

    private static HttpRequest request(HttpMethod method, String uri, String... headers) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }

    private static Map<String, String> params(Req ex, String contentLength, String root, Map<String, String> overrides) {
        ScriptPath script = ScriptPath.of(ex.path(), Pattern.compile(Route.FastCgi.DEFAULT_SPLIT_PATH_INFO), "index.php");
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
            CgiParams.write(w, ex, script, contentLength, root, overrides);
            w.finish();
            return FastCgiCodecTest.params(b);
        } finally {
            b.release();
        }
    }

    private static Req req(HttpRequest r, String path, String query) {
        InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 50123);
        return new Req(r, path, query, "http", "example.com", peer, new InetSocketAddress("127.0.0.1", 8080), peer);
    }

    @Test
    void theComputedParams() {
        Req ex = req(request(HttpMethod.POST, "/app/index.php/users/7?x=1&y=%20", "Host", "example.com:8080",
                "Content-Type", "application/json", "Content-Length", "12"), "/app/index.php/users/7", "x=1&y=%20");
        Map<String, String> p = params(ex, "12", "/var/www", null);
        assertThat(p).containsEntry("SCRIPT_FILENAME", "/var/www/app/index.php")
                .containsEntry("SCRIPT_NAME", "/app/index.php")
                .containsEntry("PATH_INFO", "/users/7")
                .containsEntry("DOCUMENT_ROOT", "/var/www")
                .containsEntry("DOCUMENT_URI", "/app/index.php/users/7")
                .containsEntry("REQUEST_URI", "/app/index.php/users/7?x=1&y=%20")
                .containsEntry("QUERY_STRING", "x=1&y=%20")
                .containsEntry("REQUEST_METHOD", "POST")
                .containsEntry("CONTENT_TYPE", "application/json")
                .containsEntry("CONTENT_LENGTH", "12")
                .containsEntry("SERVER_PROTOCOL", "HTTP/1.1")
                .containsEntry("GATEWAY_INTERFACE", "CGI/1.1")
                .containsEntry("SERVER_SOFTWARE", "strait")
                .containsEntry("REQUEST_SCHEME", "http")
                .containsEntry("REMOTE_ADDR", "192.0.2.7")
                .containsEntry("REMOTE_PORT", "50123")
                .containsEntry("SERVER_ADDR", "127.0.0.1")
                .containsEntry("SERVER_PORT", "8080")
                .containsEntry("SERVER_NAME", "example.com")
                .containsEntry("REDIRECT_STATUS", "200")
                .containsEntry("HTTP_HOST", "example.com:8080")
                .doesNotContainKeys("HTTPS", "HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH");
    }

    @Test
    void httpsIsOnForTlsClients() {
        Req plain = req(request(HttpMethod.GET, "/"), "/", null);
        Req tls = new Req(plain.request(), "/", null, "https", "a", plain.remoteAddress(), plain.localAddress(),
                plain.remoteAddress());
        assertThat(params(tls, "", "/srv", null)).containsEntry("HTTPS", "on").containsEntry("REQUEST_SCHEME", "https");
    }

    /** nginx with realip: the address the balancer named, and an empty port, since the list gives none. */
    @Test
    void theClientATrustedPeerNamedIsRemoteAddr() {
        Req direct = req(request(HttpMethod.GET, "/"), "/", null);
        Req behind = new Req(direct.request(), "/", null, "http", "a", direct.remoteAddress(), direct.localAddress(),
                new InetSocketAddress("203.0.113.9", 0));
        assertThat(params(behind, "", "/srv", null)).containsEntry("REMOTE_ADDR", "203.0.113.9")
                .containsEntry("REMOTE_PORT", "");
    }

    @Test
    void noBodyMeansEmptyContentLengthAndType() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/"), "/", null), "", "/srv", null);
        assertThat(p).containsEntry("CONTENT_LENGTH", "").containsEntry("CONTENT_TYPE", "")
                .containsEntry("QUERY_STRING", "").containsEntry("SCRIPT_FILENAME", "/srv/index.php");
    }

    @Test
    void httpoxyProxyHeaderNeverBecomesHttpProxy() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/", "Proxy", "http://evil:8080",
                "PROXY", "http://evil2"), "/", null), "", "/srv", null);
        assertThat(p).doesNotContainKey("HTTP_PROXY");
    }

    @Test
    void headerNamesWithUnderscoresAreDroppedSoTheyCannotForgeOthers() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/", "X-Real-IP", "10.0.0.1", "X_Real_IP", "6.6.6.6",
                "X.Dot", "1"), "/", null), "", "/srv", null);
        assertThat(p).containsEntry("HTTP_X_REAL_IP", "10.0.0.1");
        assertThat(p.keySet()).noneMatch(k -> k.contains("DOT"));
    }

    @Test
    void repeatedHeadersAreJoined() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/", "Accept", "a/b", "Cookie", "a=1", "accept", "c/d",
                "Cookie", "b=2"), "/", null), "", "/srv", null);
        assertThat(p).containsEntry("HTTP_ACCEPT", "a/b, c/d").containsEntry("HTTP_COOKIE", "a=1; b=2");
    }

    @Test
    void hopByHopHeadersStayHere() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/", "Connection", "keep-alive, X-Secret",
                "X-Secret", "s", "Keep-Alive", "5", "TE", "trailers", "Upgrade", "h2c", "X-Kept", "k"), "/", null),
                "", "/srv", null);
        assertThat(p).containsEntry("HTTP_X_KEPT", "k").doesNotContainKeys("HTTP_CONNECTION", "HTTP_X_SECRET",
                "HTTP_KEEP_ALIVE", "HTTP_TE", "HTTP_UPGRADE");
    }

    @Test
    void theRulesParamsComeLastAndReplaceComputedOnes() {
        Map<String, String> p = params(req(request(HttpMethod.GET, "/x.php", "X-A", "1"), "/x.php", null), "", "/srv",
                Map.of("SCRIPT_FILENAME", "/other/front.php", "APP_ENV", "prod", "HTTP_X_A", "fixed"));
        assertThat(p).containsEntry("SCRIPT_FILENAME", "/other/front.php").containsEntry("APP_ENV", "prod")
                .containsEntry("HTTP_X_A", "fixed");
    }

    @ParameterizedTest
    @CsvSource({
            "/a?b=c, /a?b=c",
            "http://h/a?b, /a?b",
            "http://h, /",
            "http://h?q, /?q",
            "https://h:8443/x/y, /x/y",
    })
    void requestUriIsInOriginForm(String target, String expected) {
        assertThat(CgiParams.requestUri(target)).isEqualTo(expected);
    }
}
