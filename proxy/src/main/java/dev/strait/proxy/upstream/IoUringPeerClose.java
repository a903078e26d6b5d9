package dev.strait.proxy.upstream;

import io.netty.channel.Channel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works around a Netty io_uring bug (4.2.18): a peer's FIN or reset that arrives while the socket still
 * holds unread bytes can go unnoticed until some other event on that socket, which never comes: the
 * channel stays open, and whoever waits for its end waits for a timeout (audit 2, cache, finding 4: a
 * slow client of a reset upstream got no EOF for 58 s).
 *
 * <p>How it happens: on {@code POLLRDHUP} Netty marks the read handle ({@code rdHupReceived}) and reads,
 * even with auto-read off, meaning to read until the EOF or the error. But its read loop
 * ({@code AbstractIoUringStreamChannel.IoUringStreamUnsafe.scheduleNextRead}) ends as soon as a recv
 * completes without {@code IORING_CQE_F_SOCK_NONEMPTY}, that is once the data is drained, before the recv
 * that would return 0 or {@code ECONNRESET}. The one-shot {@code POLLRDHUP} poll is spent, and the
 * multishot {@code POLLIN} poll that the next {@code read()} relies on reports wake-ups only: the socket
 * will not change again, so nothing reads the end. A reset is the likely case: it arrives at once, while
 * the peer's data still waits in our buffer, most often when we stopped reading for a slow client; a FIN
 * is sent only after the data, for which we must have made room.
 *
 * <p>The fix here: after a read loop ({@code channelReadComplete}), if the handle saw {@code POLLRDHUP}
 * and the channel is still open, read once more, later in the same loop turn, as Netty's own
 * {@code POLLRDHUP} handling does. That read returns the EOF (the channel closes as for any EOF) or the
 * reset (an {@code IOException} down the pipeline, then the close). The check per read loop is a field
 * read; the extra read happens once per closed connection at most. Where this Netty lacks the two
 * private members, it does nothing (and says so once).
 */
public final class IoUringPeerClose {
    private static final Logger log = LoggerFactory.getLogger(IoUringPeerClose.class);
    /** {@code IoUringRecvByteAllocatorHandle}: the io_uring channels' read handle. */
    private static final Class<?> HANDLE;
    /** Its {@code rdHupReceived} flag: {@code POLLRDHUP} was seen; never cleared for a channel. */
    private static final VarHandle RDHUP;
    /** {@code AbstractIoUringChannel.AbstractUringUnsafe.scheduleFirstReadIfNeeded()}: what Netty calls on POLLRDHUP. */
    private static final MethodHandle READ;

    static {
        Class<?> handle = null;
        VarHandle rdHup = null;
        MethodHandle read = null;
        try {
            Class<?> h = Class.forName("io.netty.channel.uring.IoUringRecvByteAllocatorHandle");
            Class<?> unsafe = Class.forName("io.netty.channel.uring.AbstractIoUringChannel$AbstractUringUnsafe");
            rdHup = MethodHandles.privateLookupIn(h, MethodHandles.lookup()).findVarHandle(h, "rdHupReceived", boolean.class);
            read = MethodHandles.privateLookupIn(unsafe, MethodHandles.lookup())
                    .findVirtual(unsafe, "scheduleFirstReadIfNeeded", MethodType.methodType(void.class));
            handle = h;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            rdHup = null;
            read = null;
            log.info("io_uring: this Netty's read handle differs ({}); a peer's close that arrives with unread "
                    + "data may be noticed only at a timeout", e.toString());
        }
        HANDLE = handle;
        RDHUP = rdHup;
        READ = read;
    }

    private IoUringPeerClose() {
    }

    /**
     * Call at the end of each read loop ({@code channelReadComplete}) of a channel whose end matters: if it
     * is an io_uring channel whose peer closed (FIN or reset) yet it is still open, the end is read soon.
     */
    public static void afterRead(Channel ch) {
        if (missed(ch)) {
            ch.eventLoop().execute(() -> readEnd(ch));
        }
    }

    /** Whether {@code ch} saw its peer's close ({@code POLLRDHUP}) but is still open. */
    static boolean missed(Channel ch) {
        if (RDHUP == null) {
            return false;
        }
        if (ch instanceof io.netty.channel.socket.DuplexChannel d && d.isInputShutdown()) {
            return false; // a half-closed channel (ALLOW_HALF_CLOSURE) has read its end already
        }
        Object h = ch.unsafe().recvBufAllocHandle();
        return HANDLE.isInstance(h) && (boolean) RDHUP.get(h) && ch.isActive();
    }

    /**
     * After the read loop (not inside it, where the read error's own {@code exceptionCaught} is still to
     * come and closes the channel): reads again, unless the channel closed meanwhile or a read is already
     * scheduled (Netty checks that).
     */
    private static void readEnd(Channel ch) {
        if (!ch.isActive()) {
            return;
        }
        try {
            READ.invoke(ch.unsafe());
        } catch (Throwable t) {
            log.debug("io_uring: could not read to the end of {}: {}; closing it", ch, t.toString());
            ch.close();
        }
    }
}
