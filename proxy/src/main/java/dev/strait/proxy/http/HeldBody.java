package dev.strait.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayDeque;

/**
 * A request body while its request waits for something off its call stack (a forward-auth check, a password
 * hashed off the loop): {@link #hold} takes the body and pauses reading, so what waits here is no more than
 * what one read brought; once the request may go on, the action's receiver gets it in order and the rest
 * follows directly. A refused request, or an action that takes no body, has it dropped. {@link #gather} takes
 * a body without pausing, for a proxy call that asks its upstream only once the body is in.
 */
public final class HeldBody implements BodyReceiver {
    private ArrayDeque<ByteBuf> parts = new ArrayDeque<>();
    private HttpHeaders trailers;
    private Throwable aborted;
    private BodyReceiver receiver;
    private boolean discarding;
    /** While gathering ({@link #gather}): what to run once the body is whole or over {@link #limit}; else null. */
    private java.util.function.Consumer<HeldBody> ready;
    private long limit;
    private long bytes;

    /** Takes {@code ex}'s body, if it has one, and stops reading from its client; {@code null} without a body. */
    public static HeldBody hold(Exchange ex) {
        if (!ex.hasBody()) {
            return null;
        }
        HeldBody body = new HeldBody();
        body.limit = Long.MAX_VALUE;
        ex.receiveBody(body);
        ex.pauseReading();
        return body;
    }

    /**
     * Takes {@code ex}'s body (it must have one) without pausing reading, and runs {@code ready} once the whole
     * body has come or more than {@code limit} bytes of it (nginx's {@code proxy_request_buffering}, without its
     * temporary file): the action started then gets what came and the rest as it comes. A body that breaks off
     * first never runs {@code ready}; the server answers the client.
     */
    public static void gather(Exchange ex, long limit, java.util.function.Consumer<HeldBody> ready) {
        HeldBody body = new HeldBody();
        body.limit = limit;
        body.ready = ready;
        ex.receiveBody(body);
    }

    private void ready() {
        java.util.function.Consumer<HeldBody> r = ready;
        if (r != null) {
            ready = null;
            r.accept(this);
        }
    }

    /**
     * The request may go on: reading resumes and {@code handler} runs on {@code ex} with this body; a body the
     * handler does not ask for is dropped, as the servers do.
     */
    public void resume(Exchange ex, java.util.function.Consumer<Exchange> handler) {
        ex.resumeReading();
        handler.accept(new ForwardingExchange(ex) {
            @Override
            public void receiveBody(BodyReceiver receiver) {
                attach(receiver);
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
        if (receiver != null) {
            receiver.onBodyPart(data);
        } else if (discarding || aborted != null) {
            data.release();
        } else {
            parts.add(data);
            bytes += data.readableBytes();
            if (bytes > limit) {
                ready(); // a gathered body past its limit: the rest streams
            }
        }
    }

    @Override
    public void onBodyEnd(HttpHeaders trailers) {
        if (receiver != null) {
            receiver.onBodyEnd(trailers);
        } else {
            this.trailers = trailers;
            ready();
        }
    }

    @Override
    public void onBodyAbort(Throwable cause) {
        if (receiver != null) {
            receiver.onBodyAbort(cause);
        } else {
            aborted = cause;
            releaseParts();
        }
    }

    /** The action's receiver: what waited is replayed now, the rest is passed on as it comes. */
    public void attach(BodyReceiver r) {
        if (discarding || receiver != null) {
            throw new IllegalStateException("the body was already given to a receiver or dropped");
        }
        receiver = r;
        ByteBuf part;
        while ((part = parts.poll()) != null) {
            r.onBodyPart(part);
        }
        if (aborted != null) {
            r.onBodyAbort(aborted);
        } else if (trailers != null) {
            r.onBodyEnd(trailers);
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
        releaseParts();
    }

    private void releaseParts() {
        ByteBuf part;
        while ((part = parts.poll()) != null) {
            part.release();
        }
    }
}
