package dev.strait.proxy.handler.files;

import dev.strait.proxy.http.ResponseHead;
import java.io.File;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;

/**
 * What is known about one served file: its validators, its 200 and 304 heads encoded once, and for
 * a small file its bytes. Immutable but for the {@link #used} bit the cache's eviction reads and,
 * for a large file, its mapping, made on first use and released when the entry leaves the cache.
 */
final class CachedFile {
    private static final VarHandle MAPPED;
    /** The mapping's state once {@link #release()} ran: no new mapping is made for this entry. */
    private static final Object RELEASED = new Object();

    static {
        try {
            MAPPED = MethodHandles.lookup().findVarHandle(CachedFile.class, "mapped", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The path as requested, symlinks unresolved: what each hit stats, so a retargeted link is seen. */
    final Path path;
    /** The real path, checked against the root when this entry was made: what is read and sent. */
    final File file;
    final long size;
    final FileTime mtime;
    /** The version this entry describes (size, mtime, ctime, device and inode): each hit compares it. */
    final FileStamp stamp;
    final long mtimeSeconds;
    final String contentType;
    /** The content coding of the bytes (a precompressed twin's), or null for the file as it is. */
    final String encoding;
    /** Whether the answers carry {@code Vary: Accept-Encoding} (the rule has {@code precompressed}). */
    final boolean vary;
    /** Strong, like nginx's: {@code "<hex mtime ms>-<hex size>"}. */
    final String etag;
    /** IMF-fixdate of {@link #mtimeSeconds}. */
    final String lastModified;
    final byte[] head200;
    final byte[] head304;
    /** The content of a small file, {@code null} for a large one (sent zero-copy from {@link #file}). */
    final byte[] body;
    /** Bytes this entry holds, for the cache's budget. */
    final int weight;
    /**
     * Set by a hit, cleared by an eviction pass (second chance). A plain field: a lost or late
     * update only changes which entry is evicted, and a hit pays no memory barrier for it.
     */
    boolean used;
    /** {@code null}, a {@link MappedFile} holding this entry's reference, or {@link #RELEASED}. */
    @SuppressWarnings("unused") // through MAPPED
    private volatile Object mapped;

    CachedFile(Path path, File file, FileStamp stamp, String contentType, byte[] body) {
        this(path, file, stamp, contentType, body, null, false);
    }

    /**
     * @param encoding the content coding of the file's bytes (a precompressed twin's: {@code br}), or null
     * @param vary     whether the rule picks a twin by {@code Accept-Encoding}: every answer says so in {@code Vary}
     */
    CachedFile(Path path, File file, FileStamp stamp, String contentType, byte[] body, String encoding, boolean vary) {
        this.path = path;
        this.file = file;
        this.size = body != null ? body.length : stamp.size();
        this.mtime = stamp.mtime();
        this.stamp = stamp;
        long mtimeMillis = mtime.toMillis();
        this.mtimeSeconds = Math.floorDiv(mtimeMillis, 1000);
        this.contentType = contentType;
        this.encoding = encoding;
        this.vary = vary;
        this.etag = "\"" + Long.toHexString(mtimeMillis) + "-" + Long.toHexString(size) + "\"";
        this.lastModified = HttpDates.format(mtimeSeconds);
        this.head200 = coded(ResponseHead.status(200)
                .header("Content-Type", contentType)
                .header("Content-Length", size)
                .header("Last-Modified", lastModified)
                .header("ETag", etag)
                .header("Accept-Ranges", "bytes"))
                .encode();
        // RFC 9110 15.4.5: a 304 carries the validators a 200 would, and no Content-Length here, since
        // it would describe a body this response does not have.
        ResponseHead h304 = ResponseHead.status(304)
                .header("Last-Modified", lastModified)
                .header("ETag", etag);
        this.head304 = (vary ? h304.header("Vary", "Accept-Encoding") : h304).encode();
        this.body = body;
        this.weight = 256 + head200.length + head304.length + (body != null ? body.length : 0)
                + 2 * path.toString().length();
    }

    /** {@code head} with this file's coding and {@code Vary}, when it has them. */
    ResponseHead coded(ResponseHead head) {
        if (encoding != null) {
            head.header("Content-Encoding", encoding);
        }
        return vary ? head.header("Vary", "Accept-Encoding") : head;
    }

    boolean isSmall() {
        return body != null;
    }

    /**
     * This large file's mapping, made on the first call; not retained (see
     * {@link MappedFile#retainedSliceOrNull}). {@code null} when there is none to give: the entry left
     * the cache, the file is too large to map, or mapping failed (the caller then sends a file region).
     */
    MappedFile mapping() {
        Object m = mapped;
        if (m == null) {
            m = map();
        }
        return m instanceof MappedFile mf ? mf : null;
    }

    /** The mapping if one was made and not released; never makes one. */
    MappedFile currentMapping() {
        return mapped instanceof MappedFile mf ? mf : null;
    }

    private Object map() {
        if (size > MappedFile.MAX_SIZE || isSmall()) {
            return RELEASED;
        }
        MappedFile mf;
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            // Opened, then stat'ed: if the path still names this entry's version, so does the channel
            // (a rename between the two shows as another inode or ctime).
            if (!isFresh(FileStamp.of(path))) {
                return null; // replaced: the file region path finds out and loads it again
            }
            mf = MappedFile.map(ch, size);
        } catch (IOException | RuntimeException e) {
            return null; // gone or unmappable now; the file region path answers and reports
        }
        // Two loops may map at once: one mapping wins, the other is dropped at once.
        Object won = MAPPED.compareAndExchange(this, null, mf);
        if (won != null) {
            mf.release();
            return won;
        }
        return mf;
    }

    /** The entry left the cache: its mapping goes once the responses still sending from it are done. */
    void release() {
        Object m = MAPPED.getAndSet(this, RELEASED);
        if (m instanceof MappedFile mf) {
            mf.release();
        }
    }

    /** Whether {@code now}, read just now, still describes the version this entry was made from. */
    boolean isFresh(FileStamp now) {
        return stamp.sameVersion(now);
    }

    /** The 206 head for {@code range} of this file. */
    byte[] head206(ByteRange range) {
        return coded(ResponseHead.status(206)
                .header("Content-Type", contentType)
                .header("Content-Length", range.length())
                .header("Content-Range", "bytes " + range.first() + "-" + range.last() + "/" + size)
                .header("Last-Modified", lastModified)
                .header("ETag", etag)
                .header("Accept-Ranges", "bytes"))
                .encode();
    }

    @Override
    public String toString() {
        return path + " (" + size + " bytes, " + etag + (isSmall() ? ", in memory)" : ")");
    }
}
