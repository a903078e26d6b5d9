package dev.strait.proxy.pacing;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's exchange as a paced action sees it: the body parts of a streamed answer go to the client while
 * the answer is within its allowance ({@code afterBytes} plus {@code bytesPerSecond} for each second since the
 * answer started), and wait in a queue past it, released by a timer on the event loop as the allowance grows.
 * While parts wait, the exchange says it is not writable, so the action stops reading its upstream (the way a
 * slow client stops it): at most one upstream read waits here, whatever the body's size.
 *
 * <p>A whole answer given at once ({@link #send}, or pre-encoded: a cache hit) larger than {@code afterBytes} is
 * streamed through the same queue, as nginx's {@code limit_rate} paces cached answers too.
 */
final class PacedExchange extends ForwardingExchange {
    /** The smallest part a timer releases (unless the rate is lower): ~20 wake-ups a second at most. */
    private static final long MIN_RELEASE = 1024;

    private final long bytesPerSecond;
    private final long afterBytes;
    private final long releaseBytes;
    private long startNanos;
    private boolean started;
    private long sent;
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
    private boolean endWaiting;
    private HttpHeaders trailers;
    /** What the action asked to run when the exchange is writable again, held while the pace holds it back. */
    private Runnable writable;
    private ScheduledFuture<?> timer;
    private boolean over;

    PacedExchange(Exchange ex, long bytesPerSecond, long afterBytes) {
        super(ex);
        this.bytesPerSecond = bytesPerSecond;
        this.afterBytes = afterBytes;
        this.releaseBytes = Math.max(Math.min(MIN_RELEASE, bytesPerSecond), bytesPerSecond / 20);
    }

    /** The bytes the answer may have sent by now, less those it has. */
    private long allowance() {
        if (!started) {
            return afterBytes + 1; // nothing started: nothing to hold back yet
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        return afterBytes + (long) Math.min(bytesPerSecond * seconds, Long.MAX_VALUE / 4) - sent;
    }

    private void start() {
        if (!started) {
            started = true;
            startNanos = System.nanoTime();
        }
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        start();
        ex.startResponse(status, headers, contentLength);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        if (body == null || body.readableBytes() <= afterBytes || isHead()) {
            ex.send(status, headers, body);
            return;
        }
        startResponse(status, headers, body.readableBytes());
        sendBodyPart(body);
        endResponse(null);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        sendPreEncoded(head, null, Unpooled.wrappedBuffer(body));
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        sendPreEncoded(head, null, body);
    }

    /**
     * A whole answer given at once (a cache hit) larger than {@code afterBytes} is streamed through the same queue, its
     * fields taken from the pre-encoded head (and the lines after it, the hit's {@code Age} and {@code X-Cache}).
     */
    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        if (body.readableBytes() <= afterBytes || isHead()) {
            if (extra == null) {
                ex.sendPreEncoded(head, body);
            } else {
                ex.sendPreEncoded(head, extra, body);
            }
            return;
        }
        HttpHeaders fields = HeadLines.fields(extra == null ? head : HeadLines.concat(head, extra),
                new DefaultHttpHeaders(false));
        fields.remove(HttpHeaderNames.CONTENT_LENGTH);
        startResponse(HttpResponseStatus.valueOf(HeadLines.status(head)), fields, body.readableBytes());
        sendBodyPart(body);
        endResponse(null);
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (over) {
            data.release();
            return;
        }
        start();
        if (waiting.isEmpty() && allowance() >= data.readableBytes()) {
            sent += data.readableBytes();
            ex.sendBodyPart(data);
            return;
        }
        waiting.add(data);
        release(false);
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (waiting.isEmpty() || over) {
            ex.endResponse(trailers);
            return;
        }
        endWaiting = true;
        this.trailers = trailers;
    }

    @Override
    public boolean isWritable() {
        return waiting.isEmpty() && allowance() > 0 && ex.isWritable();
    }

    @Override
    public void onWritable(Runnable task) {
        if (waiting.isEmpty() && allowance() > 0) {
            ex.onWritable(task);
            return;
        }
        writable = task;
        if (waiting.isEmpty()) {
            schedule(1);
        }
    }

    private void onTimer() {
        timer = null;
        release(true);
    }

    /**
     * Hands the client what the allowance lets go, then waits for the rest (or runs what waited for it). From the
     * timer, what it writes goes in one flush; from the action, within the action's own flushing.
     */
    private void release(boolean fromTimer) {
        if (over) {
            return;
        }
        if (fromTimer) {
            ex.holdFlush();
        }
        try {
            while (!waiting.isEmpty()) {
                long allow = allowance();
                ByteBuf first = waiting.peek();
                int n = first.readableBytes();
                if (allow >= n) {
                    waiting.poll();
                    sent += n;
                    ex.sendBodyPart(first);
                } else if (allow >= Math.min(releaseBytes, n)) {
                    int part = (int) allow;
                    sent += part;
                    ex.sendBodyPart(first.readRetainedSlice(part));
                } else {
                    schedule(Math.min(releaseBytes, n) - allow);
                    return;
                }
            }
        } finally {
            if (fromTimer) {
                ex.flush();
            }
        }
        if (endWaiting) {
            endWaiting = false;
            ex.endResponse(trailers);
            return;
        }
        if (writable != null) {
            if (allowance() > 0) {
                Runnable task = writable;
                writable = null;
                if (ex.isWritable()) {
                    task.run();
                } else {
                    ex.onWritable(task);
                }
            } else {
                schedule(1);
            }
        }
    }

    /** Releases again once {@code bytes} more are allowed. */
    private void schedule(long bytes) {
        if (timer != null) {
            return;
        }
        long nanos = Math.max(1, (long) Math.ceil(bytes * 1e9 / bytesPerSecond));
        timer = eventLoop().schedule(this::onTimer, nanos, TimeUnit.NANOSECONDS);
    }

    /** The answer is given up (the client left, or the action aborted): what waits is dropped. */
    private void giveUp() {
        over = true;
        writable = null;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        for (ByteBuf b; (b = waiting.poll()) != null; ) {
            b.release();
        }
    }

    @Override
    public void onCancel(Runnable task) {
        ex.onCancel(() -> {
            giveUp();
            task.run();
        });
    }

    @Override
    public void abort() {
        giveUp();
        ex.abort();
    }
}
