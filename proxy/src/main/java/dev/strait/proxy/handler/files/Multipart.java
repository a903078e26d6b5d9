package dev.strait.proxy.handler.files;

import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A 206 answer with a {@code multipart/byteranges} body for several ranges of one file (RFC 9110 14.6):
 * the head, and the bytes before each range (its delimiter, {@code Content-Type} and {@code Content-Range})
 * and after the last (the closing delimiter), made per request; the ranges themselves come from the file's
 * bytes in memory or from the file ({@link FileParts}).
 *
 * <pre>
 *   --BOUNDARY CRLF Content-Type: text/plain CRLF Content-Range: bytes 0-1/6 CRLF CRLF he
 *   CRLF --BOUNDARY CRLF ... CRLF CRLF lo
 *   CRLF --BOUNDARY-- CRLF
 * </pre>
 */
final class Multipart {
    private static final HexFormat HEX = HexFormat.of();

    /** The 206 head: {@code Content-Type: multipart/byteranges; boundary=...} and the exact {@code Content-Length}. */
    final byte[] head;
    private final byte[][] partHeads;
    private final byte[] tail;
    private final ByteRange[] ranges;
    private final long length;

    private Multipart(byte[] head, byte[][] partHeads, byte[] tail, ByteRange[] ranges, long length) {
        this.head = head;
        this.partHeads = partHeads;
        this.tail = tail;
        this.ranges = ranges;
        this.length = length;
    }

    /** @param ranges two or more ranges within {@code f}, as {@link ByteRange#parse} gives them */
    static Multipart of(CachedFile f, ByteRange[] ranges) {
        // Random, so that no file's content can be made to hold it (nginx counts answers instead); 128 bits
        // make a collision with the bytes sent as unlikely as a guess.
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String boundary = HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
        byte[][] partHeads = new byte[ranges.length][];
        long length = 0;
        for (int i = 0; i < ranges.length; i++) {
            ByteRange r = ranges[i];
            // The CRLF before a delimiter belongs to it (RFC 2046 5.1.1); the first needs none.
            String s = (i == 0 ? "--" : "\r\n--") + boundary
                    + "\r\nContent-Type: " + f.contentType
                    + "\r\nContent-Range: bytes " + r.first() + "-" + r.last() + "/" + f.size + "\r\n\r\n";
            partHeads[i] = s.getBytes(StandardCharsets.ISO_8859_1);
            length += partHeads[i].length + r.length();
        }
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.ISO_8859_1);
        length += tail.length;
        byte[] head = f.coded(ResponseHead.status(206)
                .header("Content-Type", "multipart/byteranges; boundary=" + boundary)
                .header("Content-Length", length)
                .header("Last-Modified", f.lastModified)
                .header("ETag", f.etag)
                .header("Accept-Ranges", "bytes"))
                .encode();
        return new Multipart(head, partHeads, tail, ranges, length);
    }

    /** The body made from a small file's bytes, in one buffer (at most the file and the part heads). */
    ByteBuf body(byte[] file, ByteBufAllocator alloc) {
        ByteBuf b = alloc.buffer((int) length);
        for (int i = 0; i < ranges.length; i++) {
            b.writeBytes(partHeads[i]);
            b.writeBytes(file, (int) ranges[i].first(), (int) ranges[i].length());
        }
        return b.writeBytes(tail);
    }

    /** The body of a large file open in {@code ch}, which it then owns. */
    FileParts parts(FileChannel ch) {
        long[] offsets = new long[ranges.length];
        long[] lengths = new long[ranges.length];
        for (int i = 0; i < ranges.length; i++) {
            offsets[i] = ranges[i].first();
            lengths[i] = ranges[i].length();
        }
        return new FileParts(ch, partHeads, offsets, lengths, tail);
    }
}
