package dev.strait.proxy.forwardauth;

import dev.strait.proxy.http.BodyReceiver;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayDeque;

/**
 * A request body while its request is being checked: the parts that arrive (reading is paused, so no more
 * than one read's worth) wait here; once allowed they go to the action's receiver, in order, and the rest
 * follows them directly. A refused request, or an action that takes no body, has it dropped.
 */
final class HeldBody implements BodyReceiver {
    private ArrayDeque<ByteBuf> parts = new ArrayDeque<>();
    private HttpHeaders trailers;
    private Throwable aborted;
    private BodyReceiver receiver;
    private boolean discarding;

    @Override
    public void onBodyPart(ByteBuf data) {
        if (receiver != null) {
            receiver.onBodyPart(data);
        } else if (discarding || aborted != null) {
            data.release();
        } else {
            parts.add(data);
        }
    }

    @Override
    public void onBodyEnd(HttpHeaders trailers) {
        if (receiver != null) {
            receiver.onBodyEnd(trailers);
        } else {
            this.trailers = trailers;
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
    void attach(BodyReceiver r) {
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
    void attachedOrDiscard() {
        if (receiver == null) {
            discard();
        }
    }

    void discard() {
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
