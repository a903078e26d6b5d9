package dev.strait.proxy.compression;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * The client's exchange as a compressing rule's action sees it. Each answer is judged once, by its head
 * ({@link #verdict}): one the rule compresses goes compressed in the coding chosen for the client, its fields
 * changed as a compressed representation's must be (RFC 9110 8.4, 8.8.3): {@code Content-Encoding},
 * no {@code Content-Length} unless the whole body was at hand, a strong {@code ETag} made weak, no
 * {@code Accept-Ranges}; and, whoever the client, {@code Vary: Accept-Encoding}, so that caches between keep
 * both forms apart.
 *
 * <ul>
 *   <li>A whole body given at once (a fixed answer, a small file, a cache hit, a buffered answer) is compressed
 *       at once and sent with its {@code Content-Length}; a small file's or fixed answer's compressed form is kept
 *       per loop ({@link CompressedBodies}), so it is made once, not per request.
 *   <li>A streamed answer (an upstream's) is compressed part by part, each part flushed through zlib, so a
 *       client gets each part as it comes (server-sent events, long polls).
 *   <li>A large file is read and compressed in parts as the client takes them, never zero-copy then
 *       (the bytes must pass through zlib); a file the rule does not compress still goes zero-copy.
 * </ul>
 */
final class CompressingExchange extends ForwardingExchange {
    /** What a file read at a time is, compressed before the next is read. */
    private static final int FILE_READ = 32 * 1024;
    /** The lines a compressed answer's pre-encoded head loses (and gets its own of). */
    private static final String[] COMPRESSED_REPLACES = {"content-length", "accept-ranges", "etag"};
    private static final byte[] VARY_LINE = "Vary: Accept-Encoding\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private enum Verdict {
        /** Not this rule's to compress: as it is. */
        PASS,
        /** Compressible, but not for this request: as it is, with {@code Vary}. */
        VARY,
        COMPRESS
    }

    private final CompressionHandler.Policy policy;
    /** The coding this request's answer may go in (the client takes it; neither HEAD nor HTTP/1.0), or null. */
    private final Coding coding;
    /** The key of this coding and level's kept forms ({@link CompressedBodies}). */
    private final int variant;
    /** While a streamed answer or a file is being compressed. */
    private CodingStream stream;
    private FileChannel file;
    private long filePosition;
    private long fileRemaining;
    private Runnable actionCancel;
    private boolean hooked;
    private boolean over;

    CompressingExchange(Exchange ex, CompressionHandler.Policy policy, Coding coding) {
        super(ex);
        this.policy = policy;
        this.coding = coding;
        this.variant = coding == null ? 0 : coding.ordinal() << 4 | policy.level();
    }

    private Verdict verdict(int status, CharSequence type, CharSequence encoding, long length, CharSequence cacheControl,
                            CharSequence vary) {
        if (status < 200 || status == 204 || status == 206 || status == 304 || !policy.types().matches(type)
                || encoding != null && !"identity".contentEquals(encoding)
                || cacheControl != null && cacheControl.toString().toLowerCase(java.util.Locale.ROOT).contains("no-transform")
                || length >= 0 && length < policy.minBytes()) {
            return Verdict.PASS;
        }
        if (coding == null) {
            return variesAlready(vary) ? Verdict.PASS : Verdict.VARY;
        }
        return Verdict.COMPRESS;
    }

    /** Whether {@code vary} names {@code Accept-Encoding} or {@code *} already. */
    private static boolean variesAlready(CharSequence vary) {
        if (vary == null) {
            return false;
        }
        for (String v : vary.toString().split(",")) {
            String t = v.trim();
            if (t.equals("*") || t.equalsIgnoreCase("accept-encoding")) {
                return true;
            }
        }
        return false;
    }

    private Verdict verdict(HttpResponseStatus status, HttpHeaders h, long length) {
        return verdict(status.code(), h.get(HttpHeaderNames.CONTENT_TYPE), h.get(HttpHeaderNames.CONTENT_ENCODING), length,
                String.join(",", h.getAll(HttpHeaderNames.CACHE_CONTROL)), String.join(",", h.getAll(HttpHeaderNames.VARY)));
    }

    /**
     * @param length the body's length, unless the head says another (an answer to HEAD: its head's
     *               {@code Content-Length} is what a GET would get)
     */
    private Verdict verdict(byte[] head, byte[] extra, long length) {
        String declared = HeadLines.value(head, "content-length");
        if (declared != null) {
            try {
                length = Long.parseLong(declared);
            } catch (NumberFormatException e) {
                // the body's own length stands
            }
        }
        String cc = HeadLines.value(head, "cache-control");
        String vary = HeadLines.value(head, "vary");
        if (extra != null && vary == null) {
            vary = HeadLines.value(extra, "vary");
        }
        return verdict(HeadLines.status(head), HeadLines.value(head, "content-type"),
                HeadLines.value(head, "content-encoding"), length, cc, vary);
    }

    /** The fields of a compressed answer: encoding, validators and ranges as RFC 9110 asks. */
    private void compressed(HttpHeaders h) {
        h.remove(HttpHeaderNames.CONTENT_LENGTH);
        h.remove(HttpHeaderNames.ACCEPT_RANGES);
        h.set(HttpHeaderNames.CONTENT_ENCODING, coding.token);
        varied(h);
        String etag = h.get(HttpHeaderNames.ETAG);
        if (etag != null && etag.startsWith("\"")) {
            h.set(HttpHeaderNames.ETAG, "W/" + etag);
        }
    }

    private static void varied(HttpHeaders h) {
        if (!variesAlready(String.join(",", h.getAll(HttpHeaderNames.VARY)))) {
            h.add(HttpHeaderNames.VARY, "Accept-Encoding");
        }
    }

    private static HttpResponseStatus statusOf(byte[] head) {
        return HttpResponseStatus.valueOf(HeadLines.status(head));
    }

    private static HttpHeaders fieldsOf(byte[] head) {
        return HeadLines.fields(head, new DefaultHttpHeaders(false));
    }

    // ---- whole answers ----

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        if (coding == null || body.length > CompressedBodies.MAX_BODY) {
            sendPreEncoded(head, null, Unpooled.wrappedBuffer(body));
            return;
        }
        // A body the file cache or the table holds: compressed once per loop, not per request.
        CompressedBodies.Compressed kept = CompressedBodies.get(head, body, body.length, variant);
        if (kept != null) {
            ex.sendPreEncoded(kept.head(), kept.body());
            return;
        }
        if (verdict(head, null, body.length) != Verdict.COMPRESS) {
            sendPreEncoded(head, null, Unpooled.wrappedBuffer(body));
            return;
        }
        CompressedBodies.Compressed made = keep(head, body, Unpooled.wrappedBuffer(body), null);
        ex.sendPreEncoded(made.head(), made.body());
    }

    /** {@code body} compressed (and released), its head made, and both kept for the next answer of these arrays. */
    private CompressedBodies.Compressed keep(byte[] head, byte[] bodyArray, ByteBuf body, byte[] extra) {
        int length = body.readableBytes();
        byte[] bytes;
        try {
            ByteBuf zipped = coding.open(policy.level(), length).compress(body, alloc());
            try {
                bytes = new byte[zipped.readableBytes()];
                zipped.readBytes(bytes);
            } finally {
                zipped.release();
            }
        } finally {
            body.release();
        }
        CompressedBodies.Compressed made = new CompressedBodies.Compressed(compressedHead(head, extra, bytes.length), bytes);
        CompressedBodies.put(head, bodyArray, length, variant, made);
        return made;
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        sendPreEncoded(head, null, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        if (coding != null && body.readableBytes() <= CompressedBodies.MAX_BODY) {
            // A response cache entry's head and body: compressed once per loop while the entry lasts.
            CompressedBodies.Compressed kept = CompressedBodies.get(head, null, body.readableBytes(), variant);
            if (kept != null) {
                body.release();
                pass(kept.head(), extra, Unpooled.wrappedBuffer(kept.body()));
                return;
            }
        }
        Verdict verdict = verdict(head, extra, body.readableBytes());
        if (verdict == Verdict.COMPRESS && body.readableBytes() <= CompressedBodies.MAX_BODY) {
            CompressedBodies.Compressed made = keep(head, null, body, extra);
            pass(made.head(), extra, Unpooled.wrappedBuffer(made.body()));
            return;
        }
        switch (verdict) {
            case PASS -> pass(head, extra, body);
            case VARY -> pass(HeadLines.concat(head, VARY_LINE), extra, body);
            case COMPRESS -> {
                ByteBuf zipped = compressWhole(body);
                pass(compressedHead(head, extra, zipped.readableBytes()), extra, zipped);
            }
        }
    }

    /**
     * {@code head} as a compressed body of {@code length} bytes needs it, edited as bytes (no field map per answer):
     * its length, ranges and tag lines replaced, the encoding and {@code Vary} added.
     */
    private byte[] compressedHead(byte[] head, byte[] extra, int length) {
        String etag = HeadLines.value(head, "etag");
        String vary = HeadLines.value(head, "vary");
        if (vary == null && extra != null) {
            vary = HeadLines.value(extra, "vary");
        }
        StringBuilder lines = new StringBuilder(96).append("Content-Encoding: ").append(coding.token).append("\r\n");
        if (!variesAlready(vary)) {
            lines.append("Vary: Accept-Encoding\r\n");
        }
        if (etag != null) {
            lines.append("ETag: ").append(etag.startsWith("\"") ? "W/" : "").append(etag).append("\r\n");
        }
        lines.append("Content-Length: ").append(length).append("\r\n");
        return HeadLines.concat(HeadLines.without(head, COMPRESSED_REPLACES),
                lines.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private void pass(byte[] head, byte[] extra, ByteBuf body) {
        if (extra == null) {
            ex.sendPreEncoded(head, body);
        } else {
            ex.sendPreEncoded(head, extra, body);
        }
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        if (body == null) {
            ex.send(status, headers, null);
            return;
        }
        switch (verdict(status, headers, body.readableBytes())) {
            case PASS -> ex.send(status, headers, body);
            case VARY -> {
                varied(headers);
                ex.send(status, headers, body);
            }
            case COMPRESS -> sendWhole(status, headers, body);
        }
    }

    private void sendWhole(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        ByteBuf zipped = compressWhole(body);
        compressed(headers);
        ex.send(status, headers, zipped);
    }

    /** {@code body} compressed at once in this client's coding, and released. */
    private ByteBuf compressWhole(ByteBuf body) {
        try {
            return coding.open(policy.level(), body.readableBytes()).compress(body, alloc());
        } finally {
            body.release();
        }
    }

    // ---- streamed answers ----

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        switch (verdict(status, headers, contentLength)) {
            case PASS -> ex.startResponse(status, headers, contentLength);
            case VARY -> {
                varied(headers);
                ex.startResponse(status, headers, contentLength);
            }
            case COMPRESS -> {
                compressed(headers);
                stream = coding.open(policy.level(), -1);
                hookCancel();
                ex.startResponse(status, headers, -1);
            }
        }
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (stream == null) {
            if (over) {
                data.release();
            } else {
                ex.sendBodyPart(data);
            }
            return;
        }
        ByteBuf out;
        try {
            out = stream.encode(data, alloc(), true);
        } finally {
            data.release();
        }
        forward(out);
    }

    private void forward(ByteBuf out) {
        if (out.isReadable()) {
            ex.sendBodyPart(out);
        } else {
            out.release();
        }
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (stream != null) {
            CodingStream s = stream;
            stream = null;
            forward(s.finish(alloc()));
        }
        if (!over) {
            ex.endResponse(trailers);
        }
    }

    // ---- files ----

    /** Mapped files go to the socket unread; a file this client may get compressed must be read. */
    @Override
    public boolean sendsMappedFiles() {
        return coding == null && ex.sendsMappedFiles();
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(verdict(head, null, body.readableBytes()) == Verdict.VARY ? HeadLines.concat(head, VARY_LINE) : head,
                body, mapping);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(head, body); // a 206: ranges of the file as it is, never compressed
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        Verdict v = verdict(head, null, length);
        if (v != Verdict.COMPRESS) {
            ex.sendFile(v == Verdict.VARY ? HeadLines.concat(head, VARY_LINE) : head, file, offset, length);
            return;
        }
        HttpHeaders headers = fieldsOf(head);
        compressed(headers);
        this.file = file;
        this.filePosition = offset;
        this.fileRemaining = length;
        stream = coding.open(policy.level(), -1);
        hookCancel();
        ex.startResponse(statusOf(head), headers, -1);
        pump();
    }

    /** Reads and compresses the file while the client takes it; waits for it to take more otherwise. */
    private void pump() {
        if (over || file == null) {
            return;
        }
        ex.holdFlush();
        try {
            while (fileRemaining > 0) {
                if (!ex.isWritable()) {
                    ex.onWritable(this::pump);
                    return;
                }
                ByteBuf in = alloc().buffer((int) Math.min(FILE_READ, fileRemaining));
                try {
                    int read = in.writeBytes(file, filePosition, in.writableBytes());
                    if (read <= 0) {
                        throw new IOException("the file ended " + fileRemaining + " bytes early (truncated while sent)");
                    }
                    filePosition += read;
                    fileRemaining -= read;
                    forward(stream.encode(in, alloc(), false));
                } finally {
                    in.release();
                }
            }
            closeFile();
            endResponse(null);
        } catch (IOException e) {
            giveUp();
            ex.abort(); // the head is out: the answer can only be cut short
        } finally {
            ex.flush();
        }
    }

    // ---- the end ----

    /** The client's cancel, on which both the action's task and this exchange's clean-up run. */
    private void hookCancel() {
        if (!hooked) {
            hooked = true;
            ex.onCancel(() -> {
                giveUp();
                Runnable task = actionCancel;
                actionCancel = null;
                if (task != null) {
                    task.run();
                }
            });
        }
    }

    @Override
    public void onCancel(Runnable task) {
        actionCancel = task;
        hookCancel();
    }

    private void giveUp() {
        over = true;
        if (stream != null) {
            stream.close();
            stream = null;
        }
        closeFile();
    }

    private void closeFile() {
        FileChannel f = file;
        file = null;
        if (f != null) {
            try {
                f.close();
            } catch (IOException ignored) {
                // read-only: nothing was lost
            }
        }
    }

    @Override
    public void abort() {
        giveUp();
        ex.abort();
    }
}
