package dev.strait.proxy.handler.files;

import dev.strait.model.Route;
import dev.strait.proxy.compression.AcceptEncoding;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ResponseHead;
import dev.strait.proxy.route.Handler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code files} action: static files under a root directory, mapped like nginx's {@code root}
 * (the whole request path is appended to the root). Sits where every route handler sits:
 *
 * <pre>
 *   Http1RequestDecoder -> Http1ServerHandler -> RouteTable -> FileHandler -> Exchange.send*
 * </pre>
 *
 * A request takes these steps:
 * <ol>
 *   <li>GET and HEAD only, others 405 with {@code Allow}.
 *   <li>The path's remaining escapes are decoded; {@code %2F}, NUL and dot segments are refused
 *       with 404 ({@link RequestPaths}), and so are names starting with '.' ({@code .git/},
 *       {@code .env}) outside {@code /.well-known/}, unless {@code dotfiles: allow}.
 *   <li>A cache hit ({@link FileCache}) is checked with one stat: size, mtime, ctime and file key as
 *       when it was made ({@link FileStamp}), else it is made again. A miss resolves the file (a path
 *       ending in '/' takes the first index file that exists; a directory without '/' is redirected
 *       to it, never listed), checks that its real path stays under the root's unless
 *       {@code followSymlinks}, opens it (403 when it cannot be read), and reads it when it is small.
 *       Its validators are taken only from stats before and after the open (and the read) that agree.
 *   <li>Preconditions in the order of RFC 9110 13.2.2: If-Match, If-Unmodified-Since (412),
 *       If-None-Match, If-Modified-Since (304), then Range with If-Range (206 or 416; several ranges
 *       in one {@code multipart/byteranges} answer, within {@link ByteRange#parse}'s limits, ADR 0057).
 *   <li>The answer: a small file's pre-encoded head and bytes in one write; a large file's head
 *       and, on cleartext HTTP/1.1, a slice of the file's cached memory mapping (ADR 0034), else a
 *       file region (zero-copy) or, under TLS, chunks. Several ranges of a large file go out from the
 *       file opened now, as regions of it with the part heads between them, or in chunks.
 * </ol>
 *
 * One instance serves every event loop; the only shared state is the cache.
 */
public final class FileHandler implements Handler {
    private static final Logger log = LoggerFactory.getLogger(FileHandler.class);

    /** Files up to this size are kept in memory; larger ones are sent from disk, zero-copy. */
    public static final int SMALL_FILE_MAX = 64 * 1024;
    /** Cache bounds, per files rule. */
    public static final int CACHE_MAX_ENTRIES = 1024;
    public static final long CACHE_MAX_BYTES = 32L * 1024 * 1024;

    private static final byte[] NO_BODY = new byte[0];
    private static final byte[] NOT_ALLOWED_BODY = "405 Method Not Allowed\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] NOT_ALLOWED_HEAD = ResponseHead.status(405)
            .header("Allow", "GET, HEAD")
            .header("Content-Type", "text/plain; charset=utf-8")
            .header("Content-Length", NOT_ALLOWED_BODY.length)
            .encode();
    /** Attempts to load a file that keeps changing before it is answered without validators. */
    private static final int LOAD_ATTEMPTS = 3;
    private static final byte[] CHANGING_BODY = "503 Service Unavailable: the file is changing\n"
            .getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] UNSATISFIABLE_BODY =
            "416 Range Not Satisfiable\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final AsciiString IF_MATCH = HttpHeaderNames.IF_MATCH;
    private static final AsciiString IF_UNMODIFIED_SINCE = HttpHeaderNames.IF_UNMODIFIED_SINCE;
    private static final AsciiString IF_NONE_MATCH = HttpHeaderNames.IF_NONE_MATCH;
    private static final AsciiString IF_MODIFIED_SINCE = HttpHeaderNames.IF_MODIFIED_SINCE;
    private static final AsciiString RANGE = HttpHeaderNames.RANGE;
    private static final AsciiString IF_RANGE = HttpHeaderNames.IF_RANGE;

    /** The root as configured, made absolute: request paths are resolved against it. */
    private final Path root;
    /** The root's real path; refreshed when a file seems outside it (the root link was switched). */
    private volatile Path rootReal;
    private final String[] index;
    private final boolean followSymlinks;
    /** Whether names starting with '.' are served ({@link Route.Dotfiles#ALLOW}). */
    private final boolean serveDotfiles;
    private final int smallFileMax;
    private final FileCache cache;
    /** {@code files.precompressed}: the codings whose twins are looked for, in order of preference. */
    private final List<String> precompressed;
    /**
     * Twins looked for and not found (by cache key), with when: a file without one is not looked up again for
     * {@link #ABSENT_NANOS}, as nginx's {@code open_file_cache_errors}.
     */
    private final ConcurrentHashMap<String, Long> absent = new ConcurrentHashMap<>();
    private static final long ABSENT_NANOS = 1_000_000_000L;
    private static final int ABSENT_MAX = 4096;

    FileHandler(Path root, Path rootReal, List<String> index, boolean followSymlinks, boolean serveDotfiles,
                int smallFileMax, FileCache cache) {
        this(root, rootReal, index, followSymlinks, serveDotfiles, smallFileMax, cache, List.of());
    }

    FileHandler(Path root, Path rootReal, List<String> index, boolean followSymlinks, boolean serveDotfiles,
                int smallFileMax, FileCache cache, List<String> precompressed) {
        this.precompressed = precompressed;
        this.root = root;
        this.rootReal = rootReal;
        this.index = index.toArray(String[]::new);
        this.followSymlinks = followSymlinks;
        this.serveDotfiles = serveDotfiles;
        this.smallFileMax = smallFileMax;
        this.cache = cache;
    }

    /**
     * @param path the action's field path, for messages ({@code routes[0].rules[1].files})
     * @throws IllegalArgumentException starting with the field path when the root cannot be served
     */
    public static FileHandler create(Route.Files files, String path) {
        Path root;
        try {
            root = Path.of(files.root()).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(path + ".root: not a valid path: \"" + files.root() + "\"");
        }
        if (!Files.exists(root)) {
            throw new IllegalArgumentException(path + ".root: directory " + files.root() + " does not exist");
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException(path + ".root: " + files.root() + " is not a directory");
        }
        Path rootReal;
        try {
            rootReal = root.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException(path + ".root: cannot read directory " + files.root() + ": " + e);
        }
        for (int i = 0; i < files.index().size(); i++) {
            String name = files.index().get(i);
            if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                    || name.indexOf('\\') >= 0 || name.indexOf('\0') >= 0) {
                throw new IllegalArgumentException(path + ".index[" + i + "]: must be a file name, got \"" + name + "\"");
            }
        }
        return new FileHandler(root, rootReal, files.index(), files.followSymlinks(),
                files.dotfiles() == Route.Dotfiles.ALLOW, SMALL_FILE_MAX,
                new FileCache(CACHE_MAX_ENTRIES, CACHE_MAX_BYTES), files.precompressed());
    }

    /** For tests: the mapping the cache holds for {@code key}, without making one. */
    MappedFile cachedMapping(String key) {
        CachedFile f = cache.get(key);
        return f == null ? null : f.currentMapping();
    }

    /** For tests: the cache's entry count. */
    int cachedEntries() {
        return cache.size();
    }

    @Override
    public void handle(Exchange exchange) {
        handle(exchange, true);
    }

    /** @param mayReload whether a large file found replaced just before sending may be loaded once more */
    private void handle(Exchange exchange, boolean mayReload) {
        HttpMethod method = exchange.request().method();
        if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method)) {
            exchange.sendPreEncoded(NOT_ALLOWED_HEAD, NOT_ALLOWED_BODY);
            return;
        }
        String key = RequestPaths.decode(exchange.path());
        if (key == null || !serveDotfiles && RequestPaths.hasDotName(key)) {
            exchange.sendError(HttpResponseStatus.NOT_FOUND);
            return;
        }
        if (!precompressed.isEmpty()) {
            for (String coding : AcceptEncoding.ranked(acceptEncoding(exchange), precompressed)) {
                CachedFile twin = twin(key, coding);
                if (twin != null) {
                    serve(exchange, key + '\0' + coding, twin, mayReload);
                    return;
                }
            }
        }
        CachedFile f = cache.get(key);
        if (f != null && !isFresh(f)) {
            cache.remove(key, f);
            f = null;
        }
        if (f == null) {
            f = load(exchange, key, null);
            if (f == null) {
                return; // answered: 301, 403 or 404
            }
        }
        serve(exchange, key, f, mayReload);
    }

    private static String acceptEncoding(Exchange exchange) {
        List<String> all = exchange.request().headers().getAll(HttpHeaderNames.ACCEPT_ENCODING);
        return all.isEmpty() ? null : all.size() == 1 ? all.get(0) : String.join(",", all);
    }

    /**
     * The twin of {@code key}'s file in {@code coding} ({@code app.js.br}), from the cache or loaded; null when
     * there is none to send (none beside the file, unreadable, outside the root, changing), and the file as it is
     * is answered. The cache keeps it under {@code key}, a NUL and the coding, which no request's key holds.
     */
    private CachedFile twin(String key, String coding) {
        String twinKey = key + '\0' + coding;
        CachedFile f = cache.get(twinKey);
        if (f != null && !isFresh(f)) {
            cache.remove(twinKey, f);
            f = null;
        }
        if (f != null) {
            return f;
        }
        Long missed = absent.get(twinKey);
        if (missed != null && System.nanoTime() - missed < ABSENT_NANOS) {
            return null;
        }
        f = load(null, key, coding);
        if (f == null) {
            if (absent.size() >= ABSENT_MAX) {
                absent.clear();
            }
            absent.put(twinKey, System.nanoTime());
        } else {
            absent.remove(twinKey);
        }
        return f;
    }

    private static boolean isFresh(CachedFile f) {
        try {
            return f.isFresh(FileStamp.of(f.path));
        } catch (IOException e) {
            return false; // gone or unreadable: the miss path finds out which and answers
        }
    }

    /**
     * Finds, checks and (when it is consistent) caches the file for {@code key}; or answers and returns null.
     * A file replaced or written while it is loaded is loaded again, a few times at most.
     */
    private CachedFile load(Exchange exchange, String key, String coding) {
        for (int attempt = 1; ; attempt++) {
            try {
                return loadOnce(exchange, key, coding, attempt == LOAD_ATTEMPTS);
            } catch (VersionChanged e) {
                // try again: the next stat sees the version that replaced it
            }
        }
    }

    /**
     * One attempt of {@link #load}. Stats, opens, stats again and (for a small file) reads and stats once more:
     * only when every stat agrees are the validators those of the bytes the channel holds.
     *
     * @param exchange what is answered when the file cannot be served; null when looking for a twin, which is
     *                 then not found (null) whatever the reason, and nothing answered
     * @param coding   null for the file itself; else the coding of the twin beside it to load
     * @param last whether a file that changed meanwhile is answered anyway instead of {@link VersionChanged}
     */
    private CachedFile loadOnce(Exchange exchange, String key, String coding, boolean last) throws VersionChanged {
        // Relative, whatever the number of leading slashes: Path.resolve("/etc/passwd") would
        // return that absolute path, and "//etc/passwd" is a path the normaliser lets through.
        int start = 1;
        while (start < key.length() && key.charAt(start) == '/') {
            start++;
        }
        String rel = key.substring(start);
        Path file = null;
        FileStamp attrs = null;
        boolean cacheable = true;
        try {
            if (key.endsWith("/")) {
                for (int i = 0; i < index.length && attrs == null; i++) {
                    Path candidate = root.resolve(rel + index[i]);
                    FileStamp a = statOrNull(candidate);
                    if (a != null && a.isRegularFile()) {
                        file = candidate;
                        attrs = a;
                        // Cached only when it is the first choice: the hit check would not see a
                        // preferred index file appear.
                        cacheable = i == 0;
                    }
                }
                if (attrs == null) {
                    return refuse(exchange, HttpResponseStatus.NOT_FOUND); // no listings
                }
            } else {
                file = root.resolve(rel);
                attrs = FileStamp.of(file);
                if (attrs.isDirectory()) {
                    if (exchange != null && insideRoot(file.toRealPath())) {
                        redirectToDirectory(exchange);
                        return null;
                    }
                    return refuse(exchange, HttpResponseStatus.NOT_FOUND);
                }
                if (!attrs.isRegularFile()) {
                    return refuse(exchange, HttpResponseStatus.NOT_FOUND); // devices, FIFOs, sockets
                }
            }
            // The file's own type, its twin's too (app.js.br is JavaScript, in brotli).
            String contentType = MimeTypes.forFileName(file.getFileName().toString());
            if (coding != null) {
                file = file.resolveSibling(file.getFileName() + Route.Files.ENCODINGS.get(coding));
                attrs = statOrNull(file);
                if (attrs == null || !attrs.isRegularFile()) {
                    return null; // none beside it: the file as it is
                }
            }
            if (!file.startsWith(root)) {
                return refuse(exchange, HttpResponseStatus.NOT_FOUND); // cannot happen; cheap to be sure
            }
            Path real = file.toRealPath();
            if (!insideRoot(real)) {
                log.debug("{}: leads out of the root {} to {}; refused (followSymlinks is off)", file, root, real);
                return refuse(exchange, HttpResponseStatus.NOT_FOUND);
            }
            byte[] body = null;
            boolean same;
            // Opened here for every file: one that cannot be read is answered 403 before any head is sent.
            try (FileChannel ch = FileChannel.open(real, StandardOpenOption.READ)) {
                // Stat'ed after the open: if the path still names the version stat'ed before, so does the
                // channel (a rename in between shows as another inode or ctime).
                same = FileStamp.of(file).sameVersion(attrs);
                if (same && attrs.size() <= smallFileMax) {
                    body = read(ch, attrs.size());
                    // ... and once more after the read, for a file written in place meanwhile.
                    same = body.length == attrs.size() && FileStamp.of(file).sameVersion(attrs);
                }
            }
            if (!same) {
                if (!last) {
                    throw VersionChanged.INSTANCE;
                }
                if (exchange != null) {
                    sendUnstable(exchange, file, contentType, body);
                }
                return null;
            }
            CachedFile f = new CachedFile(file, real.toFile(), attrs, contentType, body, coding, !precompressed.isEmpty());
            if (!cacheable || !cache.put(coding == null ? key : key + '\0' + coding, f)) {
                f.release(); // not in the cache, so never mapped: nothing would unmap it
            }
            return f;
        } catch (AccessDeniedException e) {
            return refuse(exchange, HttpResponseStatus.FORBIDDEN);
        } catch (IOException | InvalidPathException e) {
            // NoSuchFile, NotDirectory ("/a.txt/x"), name too long, a loop of links: not found.
            return refuse(exchange, HttpResponseStatus.NOT_FOUND);
        }
    }

    /** Answers {@code status} when there is an exchange to answer (not when looking for a twin); null. */
    private static CachedFile refuse(Exchange exchange, HttpResponseStatus status) {
        if (exchange != null) {
            exchange.sendError(status);
        }
        return null;
    }

    private static FileStamp statOrNull(Path p) throws AccessDeniedException {
        try {
            return FileStamp.of(p);
        } catch (AccessDeniedException e) {
            throw e;
        } catch (IOException e) {
            return null;
        }
    }

    /** Reads the file up to one byte past {@code size}: a file that grew since its stat shows as longer. */
    private static byte[] read(FileChannel ch, long size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate((int) size + 1);
        while (buf.hasRemaining() && ch.read(buf) >= 0) {
            // until full or at the end
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }

    /**
     * A file that changed under every attempt to load it (written continuously, a growing log): what was read
     * goes out without validators, which might not be its own, and nothing is cached; a large one is not
     * sent at all (503), since its length could not be known for sure.
     */
    private static void sendUnstable(Exchange exchange, Path file, String contentType, byte[] body) {
        if (body == null || body.length > SMALL_FILE_MAX) {
            log.debug("{}: changed while loaded, {} times; answered 503", file, LOAD_ATTEMPTS);
            exchange.sendPreEncoded(ResponseHead.status(503)
                    .header("Retry-After", 1)
                    .header("Content-Type", "text/plain; charset=utf-8")
                    .header("Content-Length", CHANGING_BODY.length)
                    .encode(), CHANGING_BODY);
            return;
        }
        exchange.sendPreEncoded(ResponseHead.status(200)
                .header("Content-Type", contentType)
                .header("Content-Length", body.length)
                .encode(), body);
    }

    private boolean insideRoot(Path real) throws IOException {
        if (followSymlinks || real.startsWith(rootReal)) {
            return true;
        }
        // The root may itself be a link that was switched (deploy by "ln -sfn release-2 current").
        Path now = root.toRealPath();
        if (now.equals(rootReal)) {
            return false;
        }
        rootReal = now;
        return real.startsWith(now);
    }

    private static void redirectToDirectory(Exchange exchange) {
        String query = exchange.query();
        String location = query == null ? exchange.path() + "/" : exchange.path() + "/?" + query;
        exchange.sendPreEncoded(ResponseHead.status(301)
                .header("Location", location)
                .header("Content-Length", 0)
                .encode(), NO_BODY);
    }

    private void serve(Exchange exchange, String key, CachedFile f, boolean mayReload) {
        HttpHeaders headers = exchange.request().headers();
        // RFC 9110 13.2.2: If-Match, else If-Unmodified-Since; If-None-Match, else If-Modified-Since.
        String v = headers.get(IF_MATCH);
        if (v != null) {
            if (!anyMatches(headers, IF_MATCH, v, f.etag, false)) {
                exchange.sendError(HttpResponseStatus.PRECONDITION_FAILED);
                return;
            }
        } else if ((v = headers.get(IF_UNMODIFIED_SINCE)) != null && !v.equals(f.lastModified)) {
            long since = HttpDates.parse(v);
            if (since != HttpDates.INVALID && f.mtimeSeconds > since) {
                exchange.sendError(HttpResponseStatus.PRECONDITION_FAILED);
                return;
            }
        }
        v = headers.get(IF_NONE_MATCH);
        if (v != null) {
            if (anyMatches(headers, IF_NONE_MATCH, v, f.etag, true)) {
                exchange.sendPreEncoded(f.head304, NO_BODY);
                return;
            }
        } else if ((v = headers.get(IF_MODIFIED_SINCE)) != null && notModifiedSince(v, f)) {
            exchange.sendPreEncoded(f.head304, NO_BODY);
            return;
        }
        // Range is defined for GET only (RFC 9110 14.2); an empty file has no range to give, so the
        // (empty) whole is sent rather than a 416 a client could not act on.
        // A twin's ranges would be of its compressed bytes, which few clients ask for knowingly: it goes whole.
        if (!exchange.isHead() && f.size > 0 && f.encoding == null && (v = headers.get(RANGE)) != null) {
            String ifRange = headers.get(IF_RANGE);
            ByteRange[] ranges = ifRange == null || ifRangeHolds(ifRange, f) ? ByteRange.parse(v, f.size) : null;
            if (ranges == ByteRange.UNSATISFIABLE) {
                exchange.sendPreEncoded(ResponseHead.status(416)
                        .header("Content-Range", "bytes */" + f.size)
                        .header("Content-Type", "text/plain; charset=utf-8")
                        .header("Content-Length", UNSATISFIABLE_BODY.length)
                        .encode(), UNSATISFIABLE_BODY);
                return;
            }
            if (ranges != null && ranges.length == 1) {
                ByteRange range = ranges[0];
                byte[] head = f.head206(range);
                if (f.isSmall()) {
                    exchange.sendPreEncoded(head, Unpooled.wrappedBuffer(f.body, (int) range.first(), (int) range.length()));
                } else {
                    sendLarge(exchange, key, head, f, range.first(), range.length(), mayReload);
                }
                return;
            }
            if (ranges != null) {
                Multipart m = Multipart.of(f, ranges);
                if (f.isSmall()) {
                    exchange.sendPreEncoded(m.head, m.body(f.body, exchange.alloc()));
                } else {
                    FileChannel ch = openVersion(exchange, key, f, mayReload);
                    if (ch != null) {
                        exchange.sendFileParts(m.head, m.parts(ch));
                    }
                }
                return;
            }
        }
        if (f.isSmall()) {
            exchange.sendPreEncoded(f.head200, f.body);
        } else {
            sendLarge(exchange, key, f.head200, f, 0, f.size, mayReload);
        }
    }

    /**
     * From the file's mapping where the connection can send one (ADR 0034), else from the file opened
     * now: as a file region (zero-copy) or in chunks. Either holds the version the entry describes, or
     * the entry is dropped and the request answered afresh (once).
     */
    private void sendLarge(Exchange exchange, String key, byte[] head, CachedFile f, long offset, long length,
                           boolean mayReload) {
        if (exchange.isHead()) {
            exchange.sendPreEncoded(head, NO_BODY);
            return;
        }
        MappedFile mapping = exchange.sendsMappedFiles() ? f.mapping() : null;
        ByteBuf body = mapping == null ? null : mapping.retainedSliceOrNull(offset, length);
        if (body != null) {
            exchange.sendMapped(head, body, mapping);
            return;
        }
        FileChannel ch = openVersion(exchange, key, f, mayReload);
        if (ch != null) {
            exchange.sendFile(head, ch, offset, length);
        }
    }

    /**
     * The file opened now, when it still holds the version {@code f} describes; otherwise the entry is
     * dropped, the request answered afresh (once) or with what the open found, and {@code null} returned.
     */
    private FileChannel openVersion(Exchange exchange, String key, CachedFile f, boolean mayReload) {
        FileChannel ch;
        try {
            ch = FileChannel.open(f.file.toPath(), StandardOpenOption.READ);
        } catch (AccessDeniedException e) {
            cache.remove(key, f);
            exchange.sendError(HttpResponseStatus.FORBIDDEN);
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            cache.remove(key, f);
            exchange.sendError(HttpResponseStatus.NOT_FOUND);
            return null;
        }
        boolean same;
        try {
            same = f.isFresh(FileStamp.of(f.path)); // opened, then stat'ed: see loadOnce
        } catch (IOException e) {
            same = false;
        }
        if (same) {
            return ch;
        }
        closeQuietly(ch);
        cache.remove(key, f);
        if (mayReload) {
            handle(exchange, false); // replaced since the hit's stat: the head made from it is not this version's
        } else {
            sendUnstable(exchange, f.path, f.contentType, null);
        }
        return null;
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    /** Thrown by {@link #loadOnce} when the file changed while it was loaded; without a stack trace. */
    private static final class VersionChanged extends Exception {
        static final VersionChanged INSTANCE = new VersionChanged();

        private VersionChanged() {
            super("changed while loaded", null, false, false);
        }
    }

    /** Whether any of the header's field lines matches: the first is usually all there is. */
    private static boolean anyMatches(HttpHeaders headers, AsciiString name, String first, String etag, boolean weak) {
        if (EntityTags.matches(first, etag, weak)) {
            return true;
        }
        List<String> all = headers.getAll(name);
        for (int i = 1; i < all.size(); i++) {
            if (EntityTags.matches(all.get(i), etag, weak)) {
                return true;
            }
        }
        return false;
    }

    private static boolean notModifiedSince(String value, CachedFile f) {
        if (value.equals(f.lastModified)) {
            return true; // what we sent, sent back: the common case, no parsing
        }
        long since = HttpDates.parse(value);
        return since != HttpDates.INVALID && f.mtimeSeconds <= since;
    }

    /** RFC 9110 13.1.5: a strong entity tag that is ours, or exactly our Last-Modified date. */
    private static boolean ifRangeHolds(String value, CachedFile f) {
        String v = value.trim();
        if (v.startsWith("\"")) {
            return v.equals(f.etag);
        }
        if (v.startsWith("W/")) {
            return false; // a weak tag never validates a range
        }
        return v.equals(f.lastModified) || HttpDates.parse(v) == f.mtimeSeconds;
    }
}
