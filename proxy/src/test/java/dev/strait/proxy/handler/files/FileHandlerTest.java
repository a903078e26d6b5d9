package dev.strait.proxy.handler.files;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strait.model.Route;
import dev.strait.proxy.handler.files.FileServer.Response;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code files} action through the real HTTP/1.1 server side, one feature per test. */
class FileHandlerTest {
    /** a.txt's mtime: 12:00:00.123, so Last-Modified (seconds) and the ETag (milliseconds) differ. */
    static final Instant MTIME = Instant.parse("2024-05-01T12:00:00.123Z");
    static final String LAST_MODIFIED = "Wed, 01 May 2024 12:00:00 GMT";
    /** {@code "<hex mtime ms>-<hex size>"}: written out, so annotations can use it. */
    static final String ETAG = "\"18f34069e7b-6\"";
    static final int LARGE = FileHandler.SMALL_FILE_MAX * 3 + 17;

    @TempDir
    Path tmp;
    Path root;
    byte[] large;

    @BeforeEach
    void files() throws IOException {
        root = Files.createDirectory(tmp.resolve("www"));
        write("a.txt", "hello\n");
        Files.setLastModifiedTime(root.resolve("a.txt"), FileTime.from(MTIME));
        write("index.html", "<h1>home</h1>\n");
        write("dir/index.html", "<h1>dir</h1>\n");
        Files.createDirectories(root.resolve("empty"));
        write("empty.txt", "");
        large = new byte[LARGE];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (i * 31 + (i >> 8));
        }
        Files.write(root.resolve("large.bin"), large);
        Files.writeString(tmp.resolve("secret.txt"), "secret\n");
    }

    private void write(String name, String content) throws IOException {
        Path p = root.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content, UTF_8);
    }

    // -- 200 ---------------------------------------------------------------------------------------------

    @Test
    void smallFileIsServedWithValidatorsAndFromTheCacheAfterwards() {
        try (FileServer s = FileServer.start(root)) {
            for (int i = 0; i < 2; i++) {
                Response r = s.get("/a.txt");
                assertThat(r.statusLine()).isEqualTo("HTTP/1.1 200 OK");
                assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
                assertThat(r.header("Content-Length")).isEqualTo("6");
                assertThat(r.header("Last-Modified")).isEqualTo(LAST_MODIFIED);
                assertThat(r.header("ETag")).isEqualTo(ETAG);
                assertThat(r.header("Accept-Ranges")).isEqualTo("bytes");
                assertThat(r.header("Date")).endsWith(" GMT");
                assertThat(r.text()).isEqualTo("hello\n");
            }
            assertThat(s.handler.cachedEntries()).isEqualTo(1);
        }
    }

    @Test
    void largeFileIsSentFromOneMappingOnCleartext() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/large.bin").body()).isEqualTo(large);
            MappedFile first = s.handler.cachedMapping("/large.bin");
            assertThat(s.get("/large.bin").body()).isEqualTo(large);
            assertThat(s.get("/large.bin", "Range: bytes=100-199").body()).isEqualTo(Arrays.copyOfRange(large, 100, 200));
            assertThat(s.mappedBodies).isEqualTo(3);
            assertThat(s.fileRegions).isZero();
            assertThat(s.handler.cachedMapping("/large.bin")).isSameAs(first); // mapped once, then shared
            assertThat(first.refCnt()).as("written: only the cache's reference is left").isEqualTo(1);
        }
    }

    @Test
    void aMappedBodyWhoseWriteFailsStillGivesItsReferenceBack() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/large.bin").body()).isEqualTo(large);
            MappedFile mapping = s.handler.cachedMapping("/large.bin");
            // What a transport does when the peer reset the connection: fail the write, drop the message.
            s.channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
                @Override
                public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                    ReferenceCountUtil.release(msg);
                    promise.tryFailure(new IOException("Connection reset by peer"));
                }
            });
            s.channel.writeInbound(Unpooled.copiedBuffer("GET /large.bin HTTP/1.1\r\nHost: x\r\n\r\n", UTF_8));
            s.channel.runPendingTasks();
            assertThat(mapping.refCnt()).as("only the cache's reference is left").isEqualTo(1);
        }
    }

    @Test
    void aMappingOutlivesItsEntryWhileAResponseSendsFromIt() throws IOException {
        Path file = root.resolve("large.bin");
        CachedFile f = new CachedFile(file, file.toFile(), FileStamp.of(file), "application/octet-stream", null);
        MappedFile mapping = f.mapping();
        ByteBuf slice = mapping.retainedSliceOrNull(10, 20);
        f.release(); // the entry left the cache while a response was sending
        assertThat(f.mapping()).as("no new mapping for a released entry").isNull();
        assertThat(mapping.refCnt()).isEqualTo(1);
        assertThat(ByteBufUtil.getBytes(slice)).isEqualTo(Arrays.copyOfRange(large, 10, 30));
        slice.release();
        mapping.release(); // what the response's write completion does
        assertThat(mapping.refCnt()).isZero();
        assertThat(mapping.retainedSliceOrNull(0, 1)).as("an unmapped file is never sliced").isNull();
    }

    @Test
    void headOfALargeFileMapsNothing() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.head("/large.bin").header("Content-Length")).isEqualTo(String.valueOf(LARGE));
            assertThat(s.mappedBodies + s.fileRegions).isZero();
        }
    }

    @Test
    void aChangedLargeFileIsMappedAgainAndTheOldMappingReleased() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/large.bin").body()).isEqualTo(large);
            MappedFile old = s.handler.cachedMapping("/large.bin");
            byte[] changed = large.clone();
            changed[0] ^= 1;
            Files.write(root.resolve("large.bin"), changed);
            Files.setLastModifiedTime(root.resolve("large.bin"), FileTime.fromMillis(System.currentTimeMillis() + 5000));
            assertThat(s.get("/large.bin").body()).isEqualTo(changed);
            assertThat(s.handler.cachedMapping("/large.bin")).isNotNull().isNotSameAs(old);
            assertThat(old.refCnt()).as("the stale entry's mapping is unmapped").isZero();
        }
    }

    @ParameterizedTest(name = "zeroCopy={0}")
    @ValueSource(booleans = {true, false})
    void largeFileIsSentFromDisk(boolean zeroCopy) {
        try (FileServer s = FileServer.start(root, "", zeroCopy)) {
            for (int i = 0; i < 2; i++) {
                Response r = s.get("/large.bin");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("Content-Type")).isEqualTo("application/octet-stream");
                assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(LARGE));
                assertThat(r.body()).isEqualTo(large);
            }
        }
    }

    @Test
    void etagIsHexMtimeMillisDashHexSize() {
        assertThat(ETAG).isEqualTo("\"" + Long.toHexString(MTIME.toEpochMilli()) + "-6\"");
    }

    @Test
    void emptyFile() {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/empty.txt");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Length")).isEqualTo("0");
            assertThat(r.body()).isEmpty();
            // Nothing to take a range of: the (empty) whole, not 416.
            assertThat(s.get("/empty.txt", "Range: bytes=0-").status()).isEqualTo(200);
        }
    }

    @Test
    void remainingEscapesAreDecodedAsUtf8() throws IOException {
        write("with space.txt", "space\n");
        write("caf\u00e9.txt", "cafe\n");
        write("100%.txt", "percent\n");
        write("%41.txt", "literal\n");
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/with%20space.txt").text()).isEqualTo("space\n");
            assertThat(s.get("/caf%C3%A9.txt").text()).isEqualTo("cafe\n");
            assertThat(s.get("/100%25.txt").text()).isEqualTo("percent\n");
            assertThat(s.get("/%2541.txt").text()).as("decoded once only").isEqualTo("literal\n");
            assertThat(s.get("/caf%E9.txt").status()).as("not UTF-8").isEqualTo(404);
        }
    }

    @Test
    void requestPathIsAppendedToTheRootLikeNginx() throws IOException {
        write("static/app.css", "body{}\n");
        String yaml = """
                listeners: [ { name: http, address: "127.0.0.1:8080" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /static/ } } ]
                        files: { root: '%s' }
                """.formatted(root);
        try (FileServer s = FileServer.startYaml(yaml, true)) {
            Response r = s.get("/static/app.css");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).isEqualTo("text/css; charset=utf-8");
            assertThat(r.text()).isEqualTo("body{}\n");
            assertThat(s.get("/a.txt").status()).as("no rule").isEqualTo(404);
        }
    }

    // -- directories -------------------------------------------------------------------------------------

    @Test
    void indexFileAnswersForAPathEndingInSlash() {
        try (FileServer s = FileServer.start(root)) {
            Response home = s.get("/");
            assertThat(home.status()).isEqualTo(200);
            assertThat(home.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
            assertThat(home.text()).isEqualTo("<h1>home</h1>\n");
            assertThat(s.get("/dir/").text()).isEqualTo("<h1>dir</h1>\n");
            assertThat(s.get("/dir/?q=1").text()).isEqualTo("<h1>dir</h1>\n");
        }
    }

    @Test
    void indexFilesAreTriedInOrder() throws IOException {
        write("site/index.htm", "htm\n");
        try (FileServer s = FileServer.start(root, ", index: [ default.html, index.htm, index.html ]", true)) {
            assertThat(s.get("/site/").text()).isEqualTo("htm\n");
            // A preferred index file that appears later is picked up (the second choice is not cached).
            write("site/default.html", "default\n");
            assertThat(s.get("/site/").text()).isEqualTo("default\n");
            assertThat(s.get("/").status()).as("index.html is third here, and still found").isEqualTo(200);
        }
    }

    @Test
    void directoryWithoutSlashIsRedirectedKeepingTheQuery() {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/dir");
            assertThat(r.statusLine()).isEqualTo("HTTP/1.1 301 Moved Permanently");
            assertThat(r.header("Location")).isEqualTo("/dir/");
            assertThat(r.header("Content-Length")).isEqualTo("0");
            assertThat(s.get("/dir?a=1&b=2").header("Location")).isEqualTo("/dir/?a=1&b=2");
            assertThat(s.get("/empty").header("Location")).isEqualTo("/empty/");
        }
    }

    @Test
    void directoriesAreNeverListed() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/empty/").status()).isEqualTo(404);
        }
        try (FileServer s = FileServer.start(root, ", index: []", true)) {
            assertThat(s.get("/").status()).isEqualTo(404);
            assertThat(s.get("/dir/").status()).isEqualTo(404);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/missing.txt", "/dir/missing.html", "/a.txt/", "/a.txt/x", "/missing/", "/A.TXT"})
    void missingIsNotFound(String path) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get(path);
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
        }
    }

    // -- what must not be reachable ----------------------------------------------------------------------

    /** 400: the server's normaliser refuses it before any rule; 404: this handler does. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "/../secret.txt                    | 400",
        "/%2e%2e/secret.txt                | 400", // decoded by the normaliser, then climbs above the root
        "/%2E%2E/secret.txt                | 400",
        "/dir/%2e%2e/%2e%2e/secret.txt     | 400",
        "/a.txt%00                         | 400", // NUL
        "/a.txt%00.html                    | 400",
        "/..%2fsecret.txt                  | 400", // an encoded slash is a separator to the router: climbs
        "/..%2Fsecret.txt                  | 400",
        "/%2e%2e%2fsecret.txt              | 400",
        "/dir%2f..%2f..%2fsecret.txt       | 400",
        "/dir/%2e%2e%2f%2e%2e%2fsecret.txt | 400",
        "/dir%2f..%2fa.txt                 | 404", // does not climb: this handler refuses the encoded slash
        "/%252e%252e/secret.txt            | 404", // decoded once: a directory named "%2e%2e", not there
        "/..%5csecret.txt                  | 400", // an encoded backslash too
        "//../secret.txt                   | 400", // slashes merge to "/../": refused before routing
    })
    void traversalIsRefused(String path, int status) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get(path);
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.text()).doesNotContain("secret");
        }
    }

    /** "//tmp/x" reaches the handler as is: it must stay under the root, not become the absolute "/tmp/x". */
    @ParameterizedTest(name = "followSymlinks={0}")
    @ValueSource(booleans = {false, true})
    void absolutePathAfterLeadingSlashesStaysUnderTheRoot(boolean followSymlinks) {
        // e.g. "tmp/junit123/secret.txt": the secret's absolute path without its leading slash
        String secret = tmp.resolve("secret.txt").toAbsolutePath().toString().replace('\\', '/').replaceFirst("^/+", "");
        String options = followSymlinks ? ", followSymlinks: true" : "";
        try (FileServer s = FileServer.start(root, options, true)) {
            for (String path : List.of("//" + secret, "///" + secret, "//" + secret.replace("/secret.txt", ""))) {
                Response r = s.get(path);
                assertThat(r.status()).as(path).isEqualTo(404);
                assertThat(r.text()).doesNotContain("secret");
            }
            assertThat(s.get("//a.txt").text()).isEqualTo("hello\n");
            assertThat(s.get("///dir/").text()).isEqualTo("<h1>dir</h1>\n");
        }
    }

    /** A checkout deployed as the root must not publish its .git or .env (nginx would); /.well-known/ stays public. */
    @Test
    void dotfilesAreNotServedUnlessAllowed() throws IOException {
        write(".env", "DB_PASSWORD=secret\n");
        write(".git/config", "[remote] secret\n");
        write("app/.htpasswd", "admin:secret\n");
        write(".well-known/acme-challenge/tok", "tok.key\n");
        write(".well-known/.hidden", "secret\n");
        try (FileServer s = FileServer.start(root)) {
            for (String path : List.of("/.env", "/.git/config", "/.git/", "/.git", "/app/.htpasswd", "/%2Eenv",
                    "/.well-known/.hidden", "/app/.well-known/x")) {
                Response r = s.get(path);
                assertThat(r.status()).as(path).isEqualTo(404);
                assertThat(r.text()).as(path).doesNotContain("secret");
            }
            assertThat(s.get("/.well-known/acme-challenge/tok").text()).isEqualTo("tok.key\n");
            assertThat(s.get("/.well-known").status()).as("redirected to the directory").isEqualTo(301);
        }
        try (FileServer s = FileServer.start(root, ", dotfiles: allow", true)) {
            assertThat(s.get("/.env").text()).isEqualTo("DB_PASSWORD=secret\n");
            assertThat(s.get("/app/.htpasswd").status()).isEqualTo(200);
        }
    }

    @Test
    void encodedSlashIsRefusedEvenWhereTheFileExists() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/dir/index.html").status()).isEqualTo(200);
            assertThat(s.get("/dir%2Findex.html").status()).isEqualTo(404);
            assertThat(s.get("/dir%2findex.html").status()).isEqualTo(404);
        }
    }

    @Test
    void symlinkOutOfTheRootIsRefused() throws IOException {
        link(root.resolve("out.txt"), tmp.resolve("secret.txt"));
        link(root.resolve("outdir"), tmp);
        link(root.resolve("in.txt"), root.resolve("a.txt"));
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/out.txt").status()).isEqualTo(404);
            assertThat(s.get("/outdir/secret.txt").status()).isEqualTo(404);
            assertThat(s.get("/outdir").status()).as("no redirect that confirms it").isEqualTo(404);
            assertThat(s.get("/in.txt").text()).as("a link inside the root").isEqualTo("hello\n");
        }
    }

    @Test
    void symlinkOutOfTheRootIsServedWhenAllowed() throws IOException {
        link(root.resolve("out.txt"), tmp.resolve("secret.txt"));
        link(root.resolve("outdir"), tmp);
        try (FileServer s = FileServer.start(root, ", followSymlinks: true", true)) {
            assertThat(s.get("/out.txt").text()).isEqualTo("secret\n");
            assertThat(s.get("/outdir/secret.txt").text()).isEqualTo("secret\n");
            assertThat(s.get("/outdir").status()).isEqualTo(301);
        }
    }

    @Test
    void symlinkRetargetedOutOfTheRootIsNoticedOnTheNextHit() throws IOException {
        write("real.txt", "real!!\n");
        Path link = link(root.resolve("link.txt"), root.resolve("real.txt"));
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/link.txt").text()).isEqualTo("real!!\n");
            Files.delete(link);
            link(link, tmp.resolve("secret.txt"));
            assertThat(s.get("/link.txt").status()).isEqualTo(404);
        }
    }

    @Test
    void rootThatIsASymlinkMayBeSwitched() throws IOException {
        Path v1 = Files.createDirectory(tmp.resolve("v1"));
        Path v2 = Files.createDirectory(tmp.resolve("v2"));
        Files.writeString(v1.resolve("app.js"), "v1();\n");
        Files.writeString(v2.resolve("app.js"), "v2();\n");
        Files.writeString(v2.resolve("new.js"), "new();\n");
        Path current = link(tmp.resolve("current"), v1);
        try (FileServer s = FileServer.start(current)) {
            assertThat(s.get("/app.js").text()).isEqualTo("v1();\n");
            Path next = link(tmp.resolve("next"), v2);
            Files.move(next, current, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertThat(s.get("/app.js").text()).isEqualTo("v2();\n");
            assertThat(s.get("/new.js").text()).isEqualTo("new();\n");
        }
    }

    private static Path link(Path link, Path target) throws IOException {
        try {
            return Files.createSymbolicLink(link, target);
        } catch (UnsupportedOperationException | IOException e) {
            assumeTrue(false, "symbolic links not available here: " + e);
            throw e;
        }
    }

    // -- methods -----------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND"})
    void otherMethodsAreNotAllowed(String method) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.request(method, "/a.txt");
            assertThat(r.statusLine()).isEqualTo("HTTP/1.1 405 Method Not Allowed");
            assertThat(r.header("Allow")).isEqualTo("GET, HEAD");
            assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(r.body().length));
        }
    }

    @Test
    void postWithABodyIsRefusedAndTheConnectionGoesOn() {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.raw("POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde");
            assertThat(r.status()).isEqualTo(405);
            assertThat(s.get("/a.txt").text()).isEqualTo("hello\n");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a.txt", "/large.bin", "/"})
    void headHasTheHeadersOfGetAndNoBody(String path) {
        try (FileServer s = FileServer.start(root)) {
            Response get = s.get(path);
            Response head = s.head(path);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            assertThat(withoutDate(head)).isEqualTo(withoutDate(get));
            assertThat(s.head(path, "Range: bytes=0-1").status()).as("Range is for GET only").isEqualTo(200);
        }
    }

    private static Map<String, List<String>> withoutDate(Response r) {
        var headers = new LinkedHashMap<>(r.headers());
        headers.remove("date");
        return headers;
    }

    // -- conditional requests ----------------------------------------------------------------------------

    @ParameterizedTest(name = "If-None-Match: {0}")
    @ValueSource(strings = {ETAG, "W/" + ETAG, "\"x\", " + ETAG, "\"a,b\",W/" + ETAG + " , \"y\"", "*"})
    void ifNoneMatchThatMatchesIsNotModified(String value) {
        try (FileServer s = FileServer.start(root)) {
            for (String path : List.of("/a.txt", "/a.txt")) { // a miss, then a hit
                Response r = s.get(path, "If-None-Match: " + value);
                assertThat(r.statusLine()).isEqualTo("HTTP/1.1 304 Not Modified");
                assertThat(r.header("ETag")).isEqualTo(ETAG);
                assertThat(r.header("Last-Modified")).isEqualTo(LAST_MODIFIED);
                assertThat(r.header("Content-Length")).isNull();
                assertThat(r.body()).isEmpty();
            }
            assertThat(s.head("/a.txt", "If-None-Match: " + value).status()).isEqualTo(304);
        }
    }

    @Test
    void ifNoneMatchOnAnySeparateFieldLine() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt", "If-None-Match: \"x\"", "If-None-Match: " + ETAG).status()).isEqualTo(304);
        }
    }

    @ParameterizedTest(name = "If-None-Match: {0}")
    @ValueSource(strings = {"\"x\"", "\"18f34069e7b-7\"", "W/\"x\"", "garbage", "\"unterminated"})
    void ifNoneMatchThatDoesNotMatchServesTheFile(String value) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "If-None-Match: " + value);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("hello\n");
            // If-None-Match present: If-Modified-Since is not looked at (RFC 9110 13.2.2).
            assertThat(s.get("/a.txt", "If-None-Match: " + value, "If-Modified-Since: " + LAST_MODIFIED).status())
                    .isEqualTo(200);
        }
    }

    @ParameterizedTest(name = "If-Modified-Since: {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        LAST_MODIFIED + "                  | 304",
        "Wed, 01 May 2024 12:00:01 GMT     | 304",
        "Thu, 01 Jan 2099 00:00:00 GMT     | 304",
        "Wed, 01 May 2024 11:59:59 GMT     | 200",
        "Wednesday, 01-May-24 12:00:00 GMT | 304",
        "Wed May  1 12:00:00 2024          | 304",
        "Wed May  1 11:00:00 2024          | 200",
        "yesterday                         | 200",
        "Wed, 32 May 2024 12:00:00 GMT     | 200",
    })
    void ifModifiedSince(String value, int status) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "If-Modified-Since: " + value);
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.header("ETag")).isEqualTo(ETAG);
            assertThat(r.body()).hasSize(status == 304 ? 0 : 6);
        }
    }

    @Test
    void largeFileIsNotModifiedToo() {
        try (FileServer s = FileServer.start(root)) {
            String etag = s.get("/large.bin").header("ETag");
            Response r = s.get("/large.bin", "If-None-Match: " + etag);
            assertThat(r.status()).isEqualTo(304);
            assertThat(r.body()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "If-Match: " + ETAG + "                              | 200",
        "If-Match: *                                         | 200",
        "If-Match: \"x\", " + ETAG + "                       | 200",
        "If-Match: \"x\"                                     | 412",
        "If-Match: W/" + ETAG + "                            | 412",
        "If-Unmodified-Since: " + LAST_MODIFIED + "          | 200",
        "If-Unmodified-Since: Wed, 01 May 2024 11:59:59 GMT  | 412",
        "If-Unmodified-Since: nonsense                       | 200",
    })
    void preconditions(String header, int status) {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt", header).status()).isEqualTo(status);
        }
    }

    // -- ranges ------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "/a.txt     | bytes=0-4          | 0      | 4",
        "/a.txt     | bytes=1-           | 1      | 5",
        "/a.txt     | bytes=-2           | 4      | 5",
        "/a.txt     | bytes=-100         | 0      | 5",
        "/a.txt     | bytes=3-999999999999999999999 | 3 | 5",
        "/a.txt     | Bytes = 2-2        | 2      | 2",
        "/a.txt     | bytes=0-0,         | 0      | 0",
        "/large.bin | bytes=0-99         | 0      | 99",
        "/large.bin | bytes=100000-      | 100000 | 196624",
        "/large.bin | bytes=-1000        | 195625 | 196624",
        "/large.bin | bytes=65530-65545  | 65530  | 65545",
    })
    void singleRangeIsPartialContent(String path, String range, long first, long last) throws IOException {
        byte[] whole = Files.readAllBytes(root.resolve(path.substring(1)));
        for (boolean zeroCopy : new boolean[] {true, false}) {
            try (FileServer s = FileServer.start(root, "", zeroCopy)) {
                for (int i = 0; i < 2; i++) { // a miss, then a hit
                    Response r = s.get(path, "Range: " + range);
                    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 206 Partial Content");
                    assertThat(r.header("Content-Range")).isEqualTo("bytes " + first + "-" + last + "/" + whole.length);
                    assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(last - first + 1));
                    assertThat(r.header("ETag")).isNotNull();
                    assertThat(r.body()).isEqualTo(Arrays.copyOfRange(whole, (int) first, (int) last + 1));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "/a.txt     | bytes=6-",
        "/a.txt     | bytes=6-10",
        "/a.txt     | bytes=-0",
        "/large.bin | bytes=196625-",
    })
    void unsatisfiableRange(String path, String range) throws IOException {
        long size = Files.size(root.resolve(path.substring(1)));
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get(path, "Range: " + range);
            assertThat(r.status()).isEqualTo(416);
            assertThat(r.header("Content-Range")).isEqualTo("bytes */" + size);
            assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(r.body().length));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bytes=5-2", "bytes=0-1,5-2", "bytes=-", "bytes=x-1", "items=0-1", "bytes 0-1", "bytes=1-2;",
        "bytes=0-,0-", "bytes=0-3,2-5", "bytes=0-0,1-1,2-2,3-3,4-4,5-5,0-0,1-1,2-2,3-3,4-4,5-5,0-0,1-1,2-2,3-3,4-4"})
    void invalidOrAbusiveRangesServeTheWholeFile(String range) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "Range: " + range);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Range")).isNull();
            assertThat(r.text()).isEqualTo("hello\n");
        }
    }

    /**
     * Several ranges: one multipart/byteranges answer whose parts name and carry their bytes, in the order
     * asked, from memory (a small file) and from the file, as regions and in chunks; a miss, then a hit.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "/a.txt     | bytes=0-1,3-4           | 0-1 3-4",
        "/a.txt     | bytes=-1, 0-0           | 5-5 0-0",
        "/a.txt     | bytes=4-, 0-1, 100-     | 4-5 0-1",
        "/large.bin | bytes=0-99,65530-65545,-1000 | 0-99 65530-65545 195625-196624",
        "/large.bin | bytes=100000-, 0-0      | 100000-196624 0-0",
    })
    void severalRangesAreOneMultipartAnswer(String path, String range, String expected) throws IOException {
        byte[] whole = Files.readAllBytes(root.resolve(path.substring(1)));
        for (boolean zeroCopy : new boolean[] {true, false}) {
            try (FileServer s = FileServer.start(root, "", zeroCopy)) {
                for (int i = 0; i < 2; i++) {
                    Response r = s.get(path, "Range: " + range);
                    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 206 Partial Content");
                    assertThat(r.header("Content-Range")).isNull();
                    assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(r.body().length));
                    assertThat(r.header("ETag")).isNotNull();
                    assertThat(r.header("Last-Modified")).isNotNull();
                    List<Multiparts.Part> parts = Multiparts.parse(r.header("Content-Type"), r.body());
                    StringBuilder got = new StringBuilder();
                    for (Multiparts.Part p : parts) {
                        got.append(got.isEmpty() ? "" : " ").append(p.first()).append('-').append(p.last());
                        assertThat(p.size()).isEqualTo(whole.length);
                        assertThat(p.headers().get("content-type")).isEqualTo(path.endsWith(".txt")
                                ? "text/plain; charset=utf-8" : "application/octet-stream");
                        assertThat(p.bytes()).isEqualTo(Arrays.copyOfRange(whole, (int) p.first(), (int) p.last() + 1));
                    }
                    assertThat(got.toString()).isEqualTo(expected);
                }
                assertThat(s.get(path).body()).as("the connection goes on").isEqualTo(whole);
            }
        }
    }

    /** Ranges that overlap or touch are one range: a plain 206 when that leaves one. */
    @Test
    void touchingRangesAreMergedIntoOne() {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "Range: bytes=0-1,2-3,1-2");
            assertThat(r.status()).isEqualTo(206);
            assertThat(r.header("Content-Range")).isEqualTo("bytes 0-3/6");
            assertThat(r.text()).isEqualTo("hell");
        }
    }

    @Test
    void eachAnswerHasABoundaryOfItsOwn() {
        try (FileServer s = FileServer.start(root)) {
            String a = s.get("/a.txt", "Range: bytes=0-0,2-2").header("Content-Type");
            String b = s.get("/a.txt", "Range: bytes=0-0,2-2").header("Content-Type");
            assertThat(a).startsWith("multipart/byteranges; boundary=").isNotEqualTo(b);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bytes=6-,100-200", "bytes=-0,6-"})
    void severalRangesNoneWithinTheFileAreUnsatisfiable(String range) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "Range: " + range);
            assertThat(r.status()).isEqualTo(416);
            assertThat(r.header("Content-Range")).isEqualTo("bytes */6");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/a.txt", "/large.bin"})
    void headIgnoresSeveralRangesToo(String path) {
        try (FileServer s = FileServer.start(root)) {
            Response head = s.head(path, "Range: bytes=0-1,3-4");
            assertThat(head.status()).as("Range is for GET only (RFC 9110 14.2)").isEqualTo(200);
            assertThat(withoutDate(head)).isEqualTo(withoutDate(s.get(path)));
            assertThat(head.body()).isEmpty();
        }
    }

    @ParameterizedTest(name = "If-Range: {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        ETAG + "                           | 206",
        "\"other\"                         | 200",
        "W/" + ETAG + "                    | 200",
        LAST_MODIFIED + "                  | 206",
        "Wednesday, 01-May-24 12:00:00 GMT | 206",
        "Wed, 01 May 2024 11:00:00 GMT     | 200",
        "Thu, 01 Jan 2099 00:00:00 GMT     | 200",
    })
    void ifRange(String value, int status) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "Range: bytes=0-1", "If-Range: " + value);
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.text()).isEqualTo(status == 206 ? "he" : "hello\n");
        }
    }

    @ParameterizedTest(name = "If-Range: {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        ETAG + "                           | 206",
        "\"other\"                         | 200",
        LAST_MODIFIED + "                  | 206",
        "Wed, 01 May 2024 11:00:00 GMT     | 200",
    })
    void ifRangeHoldsForSeveralRangesAsForOne(String value, int status) {
        try (FileServer s = FileServer.start(root)) {
            Response r = s.get("/a.txt", "Range: bytes=0-1,4-5", "If-Range: " + value);
            assertThat(r.status()).isEqualTo(status);
            if (status == 206) {
                assertThat(Multiparts.parse(r.header("Content-Type"), r.body())).hasSize(2);
            } else {
                assertThat(r.text()).isEqualTo("hello\n");
            }
        }
    }

    @Test
    void ifNoneMatchWinsOverRange() {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt", "Range: bytes=0-1", "If-None-Match: " + ETAG).status()).isEqualTo(304);
        }
    }

    // -- the cache ---------------------------------------------------------------------------------------

    @Test
    void changedContentAndMtimeIsServedOnTheNextHit() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt").text()).isEqualTo("hello\n");
            write("a.txt", "HELLO\n"); // same size
            Files.setLastModifiedTime(root.resolve("a.txt"), FileTime.from(MTIME.plusSeconds(10)));
            Response r = s.get("/a.txt");
            assertThat(r.text()).isEqualTo("HELLO\n");
            assertThat(r.header("Last-Modified")).isEqualTo("Wed, 01 May 2024 12:00:10 GMT");
            assertThat(r.header("ETag")).isNotEqualTo(ETAG);
            assertThat(s.get("/a.txt", "If-None-Match: " + ETAG).status()).as("old tag").isEqualTo(200);
        }
    }

    @Test
    void changedSizeWithTheSameMtimeIsServedOnTheNextHit() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt").text()).isEqualTo("hello\n");
            write("a.txt", "hello, world\n");
            Files.setLastModifiedTime(root.resolve("a.txt"), FileTime.from(MTIME));
            assertThat(s.get("/a.txt").text()).isEqualTo("hello, world\n");
        }
    }

    @Test
    void fileReplacedByAnotherWithTheSameSizeAndMtimeIsServedOnTheNextHit() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt").text()).isEqualTo("hello\n");
            Path next = tmp.resolve("next.txt");
            Files.writeString(next, "HELLO\n");
            Files.setLastModifiedTime(next, FileTime.from(MTIME));
            Files.move(next, root.resolve("a.txt"), StandardCopyOption.REPLACE_EXISTING);
            // Same size, same mtime: only the file key (device, inode) tells them apart.
            assertThat(s.get("/a.txt").text()).isEqualTo("HELLO\n");
        }
    }

    /**
     * {@code tar x} of a reproducible build, {@code cp -p}: new bytes of the same size under the old mtime,
     * and on ext4 often in the old inode. Only the ctime, which no one can set, tells the versions apart.
     */
    @ParameterizedTest(name = "large={0}")
    @ValueSource(booleans = {false, true})
    void sameSizeAndMtimeWrittenInPlaceIsServedOnTheNextHit(boolean isLarge) throws Exception {
        String name = isLarge ? "large.bin" : "a.txt";
        Path p = root.resolve(name);
        byte[] before = Files.readAllBytes(p);
        FileTime mtime = Files.getLastModifiedTime(p);
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/" + name).body()).isEqualTo(before);
            byte[] after = before.clone();
            after[0] ^= 0x20;
            writeInPlaceKeepingSizeAndMtime(p, after, mtime);
            assertThat(s.get("/" + name).body()).isEqualTo(after);
        }
    }

    /** Rewrites {@code p}'s bytes in its own inode and puts its mtime back, until its ctime shows the change. */
    private static void writeInPlaceKeepingSizeAndMtime(Path p, byte[] bytes, FileTime mtime) throws Exception {
        Object ctime = Files.getAttribute(p, "unix:ctime");
        Object inode = Files.getAttribute(p, "unix:ino");
        // A kernel with coarse timestamps gives a write in the same tick the same ctime: write again later.
        for (int i = 0; i < 100 && ctime.equals(Files.getAttribute(p, "unix:ctime")); i++) {
            if (i > 0) {
                Thread.sleep(5);
            }
            Files.write(p, bytes); // truncates and writes: the same inode
            Files.setLastModifiedTime(p, mtime);
        }
        assertThat(Files.getAttribute(p, "unix:ino")).isEqualTo(inode);
        assertThat(Files.getLastModifiedTime(p)).isEqualTo(mtime);
        assertThat(Files.getAttribute(p, "unix:ctime")).isNotEqualTo(ctime);
    }

    /** The JDK's stat result read through the opened package, and the unix attribute view, agree. */
    @Test
    void bothWaysToTheCtimeGiveTheSameStamp() throws Exception {
        Path p = root.resolve("a.txt");
        FileStamp fast = FileStamp.of(p);
        assertThat(fast.ctime()).as("sun.nio.fs is opened to the tests as the jar's manifest opens it").isNotNull();
        assertThat(FileStamp.ofUnixView(p)).isEqualTo(fast);
    }

    @Test
    void aChmodIsAChangeOfVersion() throws Exception {
        Path p = root.resolve("a.txt");
        FileStamp before = FileStamp.of(p);
        var perms = Files.getPosixFilePermissions(p);
        FileStamp after = before;
        for (int i = 0; i < 100 && after.sameVersion(before); i++) {
            if (i > 0) {
                Thread.sleep(5); // coarse timestamps: the same tick gives the same ctime
            }
            Files.setPosixFilePermissions(p, java.util.Set.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ));
            Files.setPosixFilePermissions(p, perms);
            after = FileStamp.of(p);
        }
        assertThat(after.size()).isEqualTo(before.size());
        assertThat(after.mtime()).isEqualTo(before.mtime());
        assertThat(after.sameVersion(before)).as("same size, mtime and inode; another ctime").isFalse();
    }

    /**
     * Deploys that write a new version aside and rename it over the old one, while requests miss and
     * load it: every answer's validators and length must be those of the bytes it carries, never the
     * old bytes under the new ETag (a client would keep them through 304s) or the new file cut to the old
     * length.
     */
    @ParameterizedTest(name = "size={0} zeroCopy={1}")
    @CsvSource({"1400, true", "140000, true", "140000, false"})
    void validatorsAlwaysDescribeTheBytesSentWhileTheFileIsReplaced(int size, boolean zeroCopy) throws Exception {
        Path target = root.resolve("race.dat");
        Files.write(target, version(0, size));
        Files.setLastModifiedTime(target, FileTime.fromMillis(1_000_000));
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
        Thread deployer = new Thread(() -> {
            try {
                for (int v = 1; !stop.get(); v++) {
                    Path next = tmp.resolve("next.dat");
                    Files.write(next, version(v, size + (v % 2) * 14)); // neighbours differ in length too
                    Files.setLastModifiedTime(next, FileTime.fromMillis(1_000_000 + v * 1000L));
                    Files.move(next, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    written.set(v);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        int checked = 0;
        deployer.start();
        try {
            long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end || written.get() < 50) {
                // A connection per 200 requests: the server closes one after 1000 (maxRequestsPerConnection).
                try (FileServer s = FileServer.start(root, "", zeroCopy)) {
                    for (int i = 0; i < 200; i++) {
                        Response r = s.get("/race.dat");
                        if (r.status() == 503) {
                            continue; // changed under every attempt: nothing sent that could mislead
                        }
                        assertThat(r.status()).isEqualTo(200);
                        byte[] body = r.body();
                        int v = Integer.parseInt(new String(body, 0, 8, java.nio.charset.StandardCharsets.US_ASCII).trim());
                        assertThat(body).as("whole version %d", v).isEqualTo(version(v, size + (v % 2) * 14));
                        assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(body.length));
                        String etag = r.header("ETag");
                        if (etag != null) { // none when it changed under every attempt
                            assertThat(etag).as("the validators of version %d", v).isEqualTo("\"" + Long.toHexString(
                                    1_000_000 + v * 1000L) + "-" + Long.toHexString(body.length) + "\"");
                        }
                        checked++;
                    }
                }
            }
        } finally {
            stop.set(true);
            deployer.join();
        }
        assertThat(checked).isGreaterThan(50);
    }

    /** Version {@code v} of a file: its number in the first 8 bytes, then bytes that depend on it. */
    private static byte[] version(int v, int size) {
        byte[] b = new byte[size];
        byte[] n = String.format("%-8d", v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, b, 0, 8);
        for (int i = 8; i < size; i++) {
            b[i] = (byte) (v * 7 + i);
        }
        return b;
    }

    @Test
    void smallFileThatGrowsLargeIsSentFromDisk() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt").text()).isEqualTo("hello\n");
            Files.write(root.resolve("a.txt"), large);
            assertThat(s.get("/a.txt").body()).isEqualTo(large);
            assertThat(s.get("/a.txt", "Range: bytes=-3").body()).isEqualTo(Arrays.copyOfRange(large, LARGE - 3, LARGE));
        }
    }

    @Test
    void deletedFileIsNotFoundAndLeavesTheCache() throws IOException {
        try (FileServer s = FileServer.start(root)) {
            assertThat(s.get("/a.txt").status()).isEqualTo(200);
            assertThat(s.get("/dir/").status()).isEqualTo(200);
            assertThat(s.handler.cachedEntries()).isEqualTo(2);
            Files.delete(root.resolve("a.txt"));
            Files.delete(root.resolve("dir/index.html"));
            assertThat(s.get("/a.txt").status()).isEqualTo(404);
            assertThat(s.get("/dir/").status()).isEqualTo(404);
            assertThat(s.handler.cachedEntries()).isZero();
        }
    }

    /** Small or large, before any head is sent, and also once a file that was served becomes unreadable. */
    @ParameterizedTest(name = "large={0}")
    @ValueSource(booleans = {false, true})
    void unreadableFileIsForbidden(boolean isLarge) throws IOException {
        Path p = root.resolve("private.bin");
        Files.write(p, isLarge ? large : "private\n".getBytes(UTF_8));
        try (FileServer s = FileServer.start(root, "", true)) {
            assertThat(s.get("/private.bin").status()).isEqualTo(200);
            assumeTrue(p.toFile().setReadable(false, false) && !Files.isReadable(p), "running as root");
            Response r = s.get("/private.bin");
            assertThat(r.status()).isEqualTo(403);
            assertThat(s.head("/private.bin").status()).isEqualTo(403);
        } finally {
            p.toFile().setReadable(true, false);
        }
    }

    // -- content types -----------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "page.html    | text/html; charset=utf-8",
        "style.css    | text/css; charset=utf-8",
        "app.js       | text/javascript; charset=utf-8",
        "mod.mjs      | text/javascript; charset=utf-8",
        "data.json    | application/json",
        "app.js.map   | application/json",
        "feed.xml     | application/xml; charset=utf-8",
        "logo.svg     | image/svg+xml; charset=utf-8",
        "logo.PNG     | image/png",
        "photo.jpeg   | image/jpeg",
        "font.woff2   | font/woff2",
        "mod.wasm     | application/wasm",
        "clip.mp4     | video/mp4",
        "seg001.ts    | video/mp2t",
        "report.docx  | application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "README       | application/octet-stream",
        ".hidden      | application/octet-stream",
        "x.unknown    | application/octet-stream",
    })
    void contentTypeByExtension(String name, String type) throws IOException {
        write("types/" + name, "x");
        try (FileServer s = FileServer.start(root, ", dotfiles: allow", true)) { // .hidden too
            assertThat(s.get("/types/" + name).header("Content-Type")).isEqualTo(type);
        }
    }

    // -- config ------------------------------------------------------------------------------------------

    @Test
    void rootThatCannotBeServedIsRefusedNamingTheField() throws IOException {
        Path missing = tmp.resolve("missing");
        assertThatThrownBy(() -> FileHandler.create(new Route.Files(missing.toString(), List.of(), false),
                "routes[0].rules[1].files"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("routes[0].rules[1].files.root: directory " + missing + " does not exist");
        Path file = tmp.resolve("secret.txt");
        assertThatThrownBy(() -> FileHandler.create(new Route.Files(file.toString(), List.of(), false), "f"))
                .hasMessage("f.root: " + file + " is not a directory");
        assertThatThrownBy(() -> FileHandler.create(new Route.Files(root.toString(), List.of("index.html", "../x"),
                false), "f"))
                .hasMessage("f.index[1]: must be a file name, got \"../x\"");
    }
}
