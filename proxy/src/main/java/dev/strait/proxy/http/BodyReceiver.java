package dev.strait.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Takes a request body as it arrives, part by part, on the connection's event loop. Use
 * {@link Exchange#pauseReading()} while the parts cannot be passed on, so that nothing is buffered whole.
 */
public interface BodyReceiver {
    /** A part of the body; the receiver owns (and must release) {@code data}. */
    void onBodyPart(ByteBuf data);

    /** The body ended; {@code trailers} may be empty. */
    void onBodyEnd(HttpHeaders trailers);

    /** The body will not be completed: the client went away or sent a broken body. */
    void onBodyAbort(Throwable cause);
}
