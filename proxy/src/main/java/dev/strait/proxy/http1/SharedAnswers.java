package dev.strait.proxy.http1;

import dev.strait.proxy.http.DateHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.IdentityHashMap;

/**
 * Whole keep-alive HTTP/1.1 answers (pre-encoded head, {@code Date}, blank line, body) built once per
 * second per event loop and written as a retained duplicate: a {@code respond} or small-file answer
 * then costs no buffer allocation and no copy per request (ADR 0032). Keys are the handler's head and
 * body arrays, by identity: those arrays are never modified, a new snapshot or file version brings new
 * ones. Only the loop's own thread touches its map.
 */
final class SharedAnswers {
    /** Answers larger than this are copied per request as before: the cache is for small, hot ones. */
    static final int MAX_BYTES = 4096;
    /** Answers remembered per loop; a larger working set is dropped and built again, never grown. */
    static final int MAX_ENTRIES = 64;

    private static final byte[] CRLF = {'\r', '\n'};

    private static final class Entry {
        final byte[] body;
        byte[] dateLine;
        ByteBuf whole;

        Entry(byte[] body) {
            this.body = body;
        }
    }

    private static final FastThreadLocal<IdentityHashMap<byte[], Entry>> ENTRIES = new FastThreadLocal<>() {
        @Override
        protected IdentityHashMap<byte[], Entry> initialValue() {
            return new IdentityHashMap<>();
        }

        @Override
        protected void onRemoval(IdentityHashMap<byte[], Entry> entries) {
            releaseAll(entries); // the loop's thread ends: its buffers go back to the pool
        }
    };

    private SharedAnswers() {}

    /** Whether {@code head} and {@code body} together are small enough to be shared. */
    static boolean fits(byte[] head, byte[] body) {
        return head.length + body.length <= MAX_BYTES - 64;
    }

    /**
     * The whole answer with the current Date, as a buffer the caller owns (a retained duplicate of the
     * loop's copy, so a write still queued when the second changes keeps its bytes).
     */
    static ByteBuf answer(ByteBufAllocator alloc, byte[] head, byte[] body) {
        IdentityHashMap<byte[], Entry> entries = ENTRIES.get();
        Entry e = entries.get(head);
        if (e == null || e.body != body) {
            if (e == null && entries.size() >= MAX_ENTRIES) {
                releaseAll(entries);
                entries.clear();
            }
            if (e != null) {
                release(e);
            }
            e = new Entry(body);
            entries.put(head, e);
        }
        byte[] dateLine = DateHeader.line();
        if (e.dateLine != dateLine) {
            release(e);
            ByteBuf whole = alloc.directBuffer(head.length + dateLine.length + CRLF.length + body.length);
            whole.writeBytes(head).writeBytes(dateLine).writeBytes(CRLF).writeBytes(body);
            e.whole = whole;
            e.dateLine = dateLine;
        }
        return e.whole.retainedDuplicate();
    }

    private static void release(Entry e) {
        if (e.whole != null) {
            e.whole.release();
            e.whole = null;
            e.dateLine = null;
        }
    }

    private static void releaseAll(IdentityHashMap<byte[], Entry> entries) {
        entries.values().forEach(SharedAnswers::release);
    }
}
