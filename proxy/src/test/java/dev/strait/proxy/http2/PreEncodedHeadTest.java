package dev.strait.proxy.http2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.strait.proxy.http.DateHeader;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PreEncodedHeadTest {

    private static byte[] head(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void convertsStatusNamesAndDropsConnectionFields() {
        Http2Headers h = PreEncodedHead.parse(head(
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\n"
                        + "Transfer-Encoding: chunked\r\nX-Thing:   spaced\r\n"));
        assertEquals("404", h.status().toString());
        assertEquals("text/plain", h.get("content-type").toString());
        assertEquals("spaced", h.get("x-thing").toString());
        assertNull(h.get("connection"));
        assertNull(h.get("transfer-encoding"));
    }

    @Test
    void linesAloneAreAddedFromTheirFirstByte() {
        // The cache's per-answer lines (Age, X-Cache) come without a status line: they start at 0.
        Http2Headers h = PreEncodedHead.parse(head("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"));
        PreEncodedHead.addLines(h, head("Age: 3\r\nX-Cache: HIT\r\n"), 0);
        assertEquals("3", h.get("age").toString());
        assertEquals("HIT", h.get("x-cache").toString());
        assertEquals("1", h.get("content-length").toString());
    }

    @Test
    void theSameArrayIsConvertedOnceAndCarriesTheCurrentDate() {
        byte[] a = head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n");
        PreEncodedHead.Shared first = PreEncodedHead.shared(a);
        PreEncodedHead.Shared again = PreEncodedHead.shared(a);
        assertSame(first, again);
        assertEquals(200, first.status);
        assertEquals(DateHeader.value().toString(), first.headers.get("date").toString());
        assertEquals(1, first.headers.getAll("date").size());

        // An equal but different array (a head built for one answer) gets headers of its own.
        PreEncodedHead.Shared other = PreEncodedHead.shared(a.clone());
        assertNotSame(first, other);
    }

    @Test
    void theRememberedSetIsBounded() {
        byte[] hot = head("HTTP/1.1 200 OK\r\n");
        PreEncodedHead.Shared before = PreEncodedHead.shared(hot);
        for (int i = 0; i < PreEncodedHead.MAX_SHARED + 1; i++) {
            PreEncodedHead.shared(head("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-" + i + "/9\r\n"));
        }
        // The map was cleared on the way: the hot head is converted anew (and works as before).
        PreEncodedHead.Shared after = PreEncodedHead.shared(hot);
        assertNotSame(before, after);
        assertFalse(after.headers.isEmpty());
    }
}
