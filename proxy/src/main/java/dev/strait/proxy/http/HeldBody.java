package dev.strait.proxy.http;

import dev.strait.proxy.bodyfiles.BodyFile;
import dev.strait.proxy.bodyfiles.BodyFiles;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request body while its request waits for something off its call stack (a forward-auth check, a password
 * hashed off the loop): {@link #hold} takes the body and pauses reading, so what waits here is no more than
 * what one read brought. {@link #gather} takes a body without pausing, for an action that asks its upstream only
 * once the body is in: in memory up to a bound, then in a file ({@link BodyFiles}). Once the request may go on,
 * the action's receiver gets what waited, in order and no faster than it asks for it (its
 * {@link Exchange#pauseReading} holds the hand-over, not the client), and the rest follows directly. A refused
 * request, or an action that takes no body, has it dropped.
 */
public final class HeldBody implements BodyReceiver {
    private static final Logger log = LoggerFactory.getLogger(HeldBody.class);

    private final Exchange client;
    /** The body's first bytes, in memory. */
    private final ArrayDeque<ByteBuf> parts = new ArrayDeque<>();
    /** What came past {@link #memory}, while the files take it; null before (or without) one. */
    private BodyFile file;
    /** What came once the file took no more, or while what waited is handed over; null until then. */
    private ArrayDeque<ByteBuf> tail;
    private boolean ended;
    private HttpHeaders trailers;
    private Throwable aborted;
    private BodyReceiver receiver;
    /** The receiver is attached and has not had everything that waited yet. */
    private boolean replaying;
    /** The receiver asked for no more while what waited is handed over. */
    private boolean receiverPaused;
    /** Reading from the client was paused here, while what waited was handed over. */
    private boolean clientPaused;
    private boolean discarding;
    /** While gathering ({@link #gather}): what to run once the body is whole or over {@link #limit}; else null. */
    private Consumer<HeldBody> ready;
    private final long limit;
    private final long memory;
    private final BodyFiles files;
    private long bytes;

    private HeldBody(Exchange client, long limit, long memory, BodyFiles files, Consumer<HeldBody> ready) {
        this.client = client;
        this.limit = limit;
        this.memory = memory;
        this.files = files;
        this.ready = ready;
    }

    /** Takes {@code ex}'s body, if it has one, and stops reading from its client; {@code null} without a body. */
    public static HeldBody hold(Exchange ex) {
        if (!ex.hasBody()) {
            return null;
        }
        HeldBody body = new HeldBody(ex, Long.MAX_VALUE, Long.MAX_VALUE, null, null);
        ex.receiveBody(body);
        ex.pauseReading();
        return body;
    }

    /**
     * Takes {@code ex}'s body (it must have one) without pausing reading, and runs {@code ready} once the whole
     * body has come or more than {@code limit} bytes of it (nginx's {@code proxy_request_buffering}): the first
     * {@code memory} bytes are held in memory, the rest in a file of {@code files} (null: none). The action started
     * then gets what came and the rest as it comes. Where the files take no more (their budget is spent, or the
     * directory refuses), {@code ready} runs at once and the rest streams. A body that breaks off first never runs
     * {@code ready}; the server answers the client.
     */
    public static void gather(Exchange ex, long limit, long memory, BodyFiles files, Consumer<HeldBody> ready) {
        ex.receiveBody(new HeldBody(ex, limit, memory, files, ready));
    }

    /** Whether the whole body is here ({@link #length} is its length), rather than its first part. */
    public boolean whole() {
        return ended && aborted == null;
    }

    /** The bytes that came so far. */
    public long length() {
        return bytes;
    }

    private void ready() {
        Consumer<HeldBody> r = ready;
        if (r != null) {
            ready = null;
            r.accept(this);
        }
    }

    /**
     * The request may go on: reading resumes and {@code handler} runs on {@code ex} with this body; a body the
     * handler does not ask for is dropped, as the servers do.
     */
    public void resume(Exchange ex, Consumer<Exchange> handler) {
        ex.resumeReading();
        handler.accept(new ForwardingExchange(ex) {
            @Override
            public void receiveBody(BodyReceiver receiver) {
                attach(receiver);
            }

            @Override
            public void pauseReading() {
                if (receiver == null || replaying) {
                    receiverPaused = true; // before or during the hand-over: it waits, the client may go on
                } else {
                    super.pauseReading();
                }
            }

            @Override
            public void resumeReading() {
                if (receiver == null) {
                    receiverPaused = false;
                } else if (!replaying) {
                    super.resumeReading();
                } else if (receiverPaused) {
                    receiverPaused = false;
                    client.eventLoop().execute(HeldBody.this::handOver); // not inside the receiver's own call
                }
            }
        });
        attachedOrDiscard();
    }

    /** The request was answered without its action: the body is read to its end and dropped. */
    public void drop(Exchange ex) {
        discard();
        ex.resumeReading();
    }

    @Override
    public void onBodyPart(ByteBuf data) {
        if (receiver != null && !replaying) {
            receiver.onBodyPart(data);
            return;
        }
        if (discarding || aborted != null) {
            data.release();
            return;
        }
        if (receiver != null) {
            // Behind what is being handed over: waits its turn, and the client waits with it.
            tail().add(data);
            pauseClient();
            return;
        }
        bytes += data.readableBytes();
        if (tail == null && file == null && bytes <= memory) {
            parts.add(data);
        } else if (tail != null || !spill(data)) {
            tail().add(data);
            ready(); // the files take no more: the rest streams
            return;
        }
        if (bytes > limit) {
            ready(); // a gathered body past its limit: the rest streams
        }
    }

    /** Puts {@code data} in the body's file (made with the first part past memory); false if it cannot. */
    private boolean spill(ByteBuf data) {
        if (file == null) {
            file = files == null ? null : files.open();
            if (file == null) {
                return false;
            }
        }
        return file.append(data);
    }

    private ArrayDeque<ByteBuf> tail() {
        if (tail == null) {
            tail = new ArrayDeque<>(4);
        }
        return tail;
    }

    @Override
    public void onBodyEnd(HttpHeaders trailers) {
        if (receiver != null && !replaying) {
            receiver.onBodyEnd(trailers);
            return;
        }
        ended = true;
        this.trailers = trailers;
        if (receiver == null) {
            ready();
        }
    }

    @Override
    public void onBodyAbort(Throwable cause) {
        if (receiver != null && !replaying) {
            receiver.onBodyAbort(cause);
            return;
        }
        aborted = cause;
        releaseAll();
        if (receiver != null) {
            replaying = false;
            receiver.onBodyAbort(cause);
        }
    }

    /** The action's receiver: what waited is handed over as it asks for it, the rest is passed on as it comes. */
    public void attach(BodyReceiver r) {
        if (discarding || receiver != null) {
            throw new IllegalStateException("the body was already given to a receiver or dropped");
        }
        receiver = r;
        replaying = true;
        handOver();
    }

    /** Hands what waited to the receiver until it pauses or all of it went; then the end, or the client again. */
    private void handOver() {
        while (replaying && !receiverPaused) {
            ByteBuf next = parts.poll();
            if (next == null && file != null) {
                try {
                    next = file.read(client.alloc());
                } catch (IOException e) {
                    lostFile(e);
                    return;
                }
                if (next == null) {
                    file.close();
                    file = null;
                    continue;
                }
            }
            if (next == null && tail != null) {
                next = tail.poll();
            }
            if (next == null) {
                replaying = false;
                if (aborted != null) {
                    return; // told already
                }
                if (clientPaused) {
                    clientPaused = false;
                    client.resumeReading();
                }
                if (ended) {
                    receiver.onBodyEnd(trailers);
                }
                return;
            }
            receiver.onBodyPart(next);
        }
    }

    /** The body's file could not be read back: the request cannot go on whole, so it ends here. */
    private void lostFile(IOException e) {
        log.warn("request {}: reading its body back from a file failed ({}); answering 500", client.path(),
                e.toString());
        aborted = e;
        releaseAll();
        replaying = false;
        receiver.onBodyAbort(e);
        client.sendError(HttpResponseStatus.INTERNAL_SERVER_ERROR);
    }

    private void pauseClient() {
        if (!clientPaused) {
            clientPaused = true;
            client.pauseReading();
        }
    }

    /** After the action's {@code handle}: a body it did not ask for is dropped, as the servers do. */
    public void attachedOrDiscard() {
        if (receiver == null) {
            discard();
        }
    }

    /** Drops what waited and whatever comes. */
    public void discard() {
        discarding = true;
        releaseAll();
    }

    private void releaseAll() {
        ByteBuf part;
        while ((part = parts.poll()) != null) {
            part.release();
        }
        if (tail != null) {
            while ((part = tail.poll()) != null) {
                part.release();
            }
        }
        if (file != null) {
            file.close();
            file = null;
        }
    }
}
