package dev.strait.proxy.http2;

import dev.strait.model.Limits;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The two timeouts of one HTTP/2 stream that Netty does not keep, owned by its {@link Http2Exchange}:
 * {@code bodyTimeout} (the request body stopped arriving while we were reading it) and
 * {@code sendTimeout} (the stream stayed unwritable: the client's window for it stayed shut, or the
 * connection stopped draining). One timer per stream, scheduled only while the stream waits for either,
 * and moved lazily: progress only notes the time, the timer re-arms itself for the time left.
 */
final class StreamDeadlines {
    /** What the exchange does when a deadline passes. */
    interface Expiry {
        void bodyTimedOut();

        void sendTimedOut();
    }

    private final ChannelHandlerContext ctx;
    private final Expiry expiry;
    private final long bodyNanos;
    private final long sendNanos;
    /** When body bytes last came or reading resumed; 0 while not waiting for the body. */
    private long bodySince;
    /** When the stream became unwritable; 0 while writable. */
    private long unwritableSince;
    private ScheduledFuture<?> timer;
    private long timerDeadline;

    StreamDeadlines(ChannelHandlerContext ctx, Limits limits, Expiry expiry) {
        this.ctx = ctx;
        this.expiry = expiry;
        this.bodyNanos = limits.bodyTimeout().toNanos();
        this.sendNanos = limits.sendTimeout().toNanos();
    }

    /** Waiting for the request body (true), or not: it ended, or reading is paused on our side. */
    void waitForBody(boolean waiting) {
        if (!waiting) {
            bodySince = 0;
        } else {
            bodySince = System.nanoTime();
            timerBy(bodySince + bodyNanos);
        }
    }

    /** Body bytes arrived. */
    void bodyProgress() {
        if (bodySince != 0) {
            bodySince = System.nanoTime();
        }
    }

    void writability(boolean writable) {
        if (writable) {
            unwritableSince = 0;
        } else if (unwritableSince == 0) {
            unwritableSince = System.nanoTime();
            timerBy(unwritableSince + sendNanos);
        }
    }

    void cancel() {
        bodySince = 0;
        unwritableSince = 0;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void timerBy(long deadline) {
        if (timer == null || timerDeadline - deadline > 0) {
            if (timer != null) {
                timer.cancel(false);
            }
            timerDeadline = deadline;
            timer = ctx.executor().schedule(this::onTimer,
                    Math.max(deadline - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(10)), TimeUnit.NANOSECONDS);
        }
    }

    private void onTimer() {
        timer = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (unwritableSince != 0 && now - (unwritableSince + sendNanos) >= 0) {
            cancel();
            expiry.sendTimedOut();
            return;
        }
        if (bodySince != 0 && now - (bodySince + bodyNanos) >= 0) {
            bodySince = 0;
            expiry.bodyTimedOut();
            if (unwritableSince == 0) {
                return;
            }
        }
        long next = 0;
        boolean waiting = false;
        if (unwritableSince != 0) {
            next = unwritableSince + sendNanos;
            waiting = true;
        }
        if (bodySince != 0 && (!waiting || bodySince + bodyNanos - next < 0)) {
            next = bodySince + bodyNanos;
            waiting = true;
        }
        if (waiting) {
            timerBy(next);
        }
    }
}
