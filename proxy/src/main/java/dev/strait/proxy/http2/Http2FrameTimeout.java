package dev.strait.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Right before {@code Http2FrameCodec}: a frame, or a header block (HEADERS without END_HEADERS and its
 * CONTINUATIONs), that the client has begun must be complete within {@code headerTimeout}, else the
 * connection is closed (gracefully: GOAWAY, open streams finish). Netty has no such timer; without it a
 * client holds a connection, and up to a header list of memory, by never finishing a header block (no
 * stream is open meanwhile, and nothing else may be sent on the connection, RFC 9113 6.10), or by
 * trickling a frame a byte at a time.
 *
 * <p>It reads only the 9-byte frame headers as the bytes pass (nothing is copied or held) and schedules
 * its timer only when a read ends inside a frame or a block, moving it lazily.
 */
final class Http2FrameTimeout extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Http2FrameTimeout.class);
    private static final int HEADERS = 0x1, PUSH_PROMISE = 0x5, CONTINUATION = 0x9, END_HEADERS = 0x4;
    private final long timeoutNanos;
    /** Bytes of the client preface (RFC 9113 3.4) still to pass. */
    private int prefaceLeft = 24;
    private final byte[] head = new byte[9];
    private int headBytes;
    private long payloadLeft;
    private boolean inHeaderBlock;
    /** When the incomplete frame or block began; 0 when the last read ended between frames. */
    private long pendingSince;
    private ScheduledFuture<?> timer;

    Http2FrameTimeout(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            scan(buf);
            boolean pending = inHeaderBlock || headBytes > 0 || payloadLeft > 0;
            if (!pending) {
                pendingSince = 0;
            } else if (pendingSince == 0) {
                pendingSince = System.nanoTime();
                if (timer == null) {
                    schedule(ctx, timeoutNanos);
                }
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void scan(ByteBuf buf) {
        int i = buf.readerIndex();
        int end = buf.writerIndex();
        if (prefaceLeft > 0) {
            int n = Math.min(prefaceLeft, end - i);
            prefaceLeft -= n;
            i += n;
        }
        while (i < end) {
            if (payloadLeft > 0) {
                int n = (int) Math.min(payloadLeft, end - i);
                payloadLeft -= n;
                i += n;
                continue;
            }
            int n = Math.min(9 - headBytes, end - i);
            buf.getBytes(i, head, headBytes, n);
            headBytes += n;
            i += n;
            if (headBytes == 9) {
                headBytes = 0;
                payloadLeft = (head[0] & 0xffL) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
                int type = head[3] & 0xff;
                boolean endHeaders = (head[4] & END_HEADERS) != 0;
                if (type == HEADERS || type == PUSH_PROMISE || type == CONTINUATION) {
                    inHeaderBlock = !endHeaders;
                }
            }
        }
    }

    private void schedule(ChannelHandlerContext ctx, long nanos) {
        timer = ctx.executor().schedule(() -> onTimer(ctx), Math.max(nanos, TimeUnit.MILLISECONDS.toNanos(10)),
                TimeUnit.NANOSECONDS);
    }

    private void onTimer(ChannelHandlerContext ctx) {
        timer = null;
        if (pendingSince == 0 || !ctx.channel().isActive()) {
            return;
        }
        long left = pendingSince + timeoutNanos - System.nanoTime();
        if (left > 0) {
            schedule(ctx, left);
            return;
        }
        log.debug("{}: a frame or header block unfinished for {} ms, closing", ctx.channel().remoteAddress(),
                TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        pendingSince = 0;
        ctx.channel().close(); // through the codec: GOAWAY, then the close once open streams are done
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
        ctx.fireChannelInactive();
    }
}
