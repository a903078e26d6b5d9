package dev.strait.proxy.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * First in a TLS connection's pipeline: reads the ClientHello's SNI name, picks the certificate from
 * the listener's current {@link SniTable} (the snapshot serving when the handshake starts, so a
 * reloaded certificate is used by new handshakes while open connections keep theirs), records the
 * choice as {@link TlsConnection} and replaces itself with the {@code SslHandler}.
 */
public final class SniSelector extends SniHandler {
    private final Supplier<SniTable> table;
    private ServerCertificate chosen;

    public SniSelector(Supplier<SniTable> table, long handshakeTimeoutMillis) {
        // The mapping is unused: lookup() below picks the certificate and remembers which it was.
        super((io.netty.util.Mapping<String, SslContext>) name -> null, 16 * 1024, handshakeTimeoutMillis);
        this.table = table;
    }

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, String hostname) {
        chosen = table.get().select(hostname);
        return ctx.executor().newSucceededFuture(chosen.context());
    }

    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) throws Exception {
        ctx.channel().attr(TlsConnection.KEY).set(new TlsConnection(
                hostname == null ? null : ServerCertificate.normalize(hostname), chosen));
        super.replaceHandler(ctx, hostname, sslContext);
    }
}
