package dev.strait.proxy.upstream;

import io.netty.handler.codec.http.HttpObject;

/**
 * The request using an upstream connection. Every call comes on the connection's event loop, which
 * is the client connection's loop too.
 */
public interface UpstreamListener {
    /** A connection is ready for the request: a pooled one ({@code reused}) or a new one. */
    void onConnected(UpstreamConnection connection, boolean reused);

    /** No connection could be made. */
    void onConnectFailed(Throwable cause);

    /** A decoded part of the response; the listener owns (and releases) {@code msg}. */
    void onMessage(HttpObject msg);

    /** The end of one read batch from the upstream: a good moment to flush toward the client. */
    void onReadComplete();

    /** The upstream connection can take more bytes again (or not). */
    void onWritabilityChanged(boolean writable);

    /** The connection closed while the request was using it. */
    void onClosed(Throwable cause);

    /**
     * The connection's timer fired; the listener checks its deadlines and returns the next one
     * ({@code System.nanoTime()} based), or 0 for none.
     */
    long onTimer(long now);
}
