package dev.strait.proxy.tls;

import dev.strait.proxy.tls.ocsp.ClientOcsp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in a TLS connection's pipeline: reads the ClientHello's SNI name, picks the certificate from
 * the listener's current {@link SniTable} (the snapshot serving when the handshake starts, so a
 * reloaded certificate is used by new handshakes while open connections keep theirs), records the
 * choice as {@link TlsConnection} and replaces itself with the {@code SslHandler}.
 *
 * <p>A client that speaks plain HTTP to the TLS port (an {@code http://} URL with the HTTPS port, a
 * health check without TLS) gets a readable 400 that says so, as from nginx, instead of a connection
 * closed without a word: a TLS record starts with its content type (20 to 24) or, in an SSLv2-style
 * hello, a byte with the high bit set, never with the capital letter that starts a request method.
 */
public final class SniSelector extends SniHandler {
    private static final Logger log = LoggerFactory.getLogger(SniSelector.class);
    private static final byte[] PLAIN_HTTP;

    static {
        String body = "400 Bad Request: a plain HTTP request was sent to an HTTPS port\n";
        PLAIN_HTTP = ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
    }

    /** Takes over a connection whose ClientHello names a passed-through host (routes' {@code tlsPassthrough}). */
    public interface PassthroughStart {
        /**
         * Called once, in place of the TLS handshake, with this selector's context: the starter puts its own handler
         * where the selector was; the bytes read so far, ClientHello first, reach that handler as this one leaves.
         */
        void start(ChannelHandlerContext ctx, String serverName, SniTable.Passthrough to);
    }

    private final Supplier<SniTable> table;
    private final PassthroughStart passthroughStart;
    /** Asks OCSP about client certificates where a policy says so (ADR 0106); null: nothing is asked. */
    private final Supplier<ClientOcsp> clientOcsp;
    /** Where this connection is passed through, when its ClientHello named such a host. */
    private SniTable.Passthrough passthrough;
    private ServerCertificate chosen;
    private ClientValidationPolicy policy;
    /** The client spoke plain HTTP: answered, closing; whatever else it sends is dropped. */
    private boolean plain;
    /** No certificate for the name (a listener that only passes TLS through): closing, the rest dropped. */
    private boolean refused;
    /** The ClientHello was read and its certificate or passthrough chosen. */
    private boolean chosenYet;

    public SniSelector(Supplier<SniTable> table, long handshakeTimeoutMillis) {
        this(table, handshakeTimeoutMillis, null);
    }

    /** @param passthroughStart what takes over passed-through connections; null: the table passes none through */
    public SniSelector(Supplier<SniTable> table, long handshakeTimeoutMillis, PassthroughStart passthroughStart) {
        this(table, handshakeTimeoutMillis, passthroughStart, null);
    }

    /**
     * @param passthroughStart what takes over passed-through connections; null: the table passes none through
     * @param clientOcsp       what asks OCSP about client certificates, made when first wanted; null: nothing is asked,
     *                         and a policy that wants answers refuses certificates for want of one
     */
    public SniSelector(Supplier<SniTable> table, long handshakeTimeoutMillis, PassthroughStart passthroughStart,
                       Supplier<ClientOcsp> clientOcsp) {
        // The mapping is unused: lookup() below picks the certificate and remembers which it was.
        super((io.netty.util.Mapping<String, SslContext>) name -> null, 16 * 1024, handshakeTimeoutMillis);
        this.table = table;
        this.passthroughStart = passthroughStart;
        this.clientOcsp = clientOcsp;
    }

    /**
     * Where the listener passes TLS through, a client's FIN must not end the connection before it is known whether
     * this one is passed through: such a client may send its ClientHello, its data and its FIN at once, and still
     * wait for the answer (TunnelRelay passes the FIN on). So the FIN ends only the input until the choice; a
     * connection whose TLS ends here then takes it as a close, as without this.
     */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        if (passthroughStart != null && table.get().passesThrough()) {
            ctx.channel().config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        super.userEventTriggered(ctx, evt); // the decoder reads what it still holds first
        if (evt == io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE && !chosenYet && ctx.channel().isActive()) {
            ctx.close(); // the client's FIN came before a whole ClientHello: nothing will complete it
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (plain || refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.isReadable()) {
            byte first = in.getByte(in.readerIndex());
            if (first >= 'A' && first <= 'Z') {
                plain = true;
                in.skipBytes(in.readableBytes());
                if (ctx.channel().isActive()) {
                    log.debug("{}: plain HTTP on a TLS listener: answered 400", ctx.channel().remoteAddress());
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(PLAIN_HTTP)).addListener(f -> linger(ctx));
                }
                return;
            }
        }
        super.decode(ctx, in, out);
    }

    /**
     * Closes after the 400 without resetting it away: a request body still arriving would make a plain close
     * send RST, and the client's stack may drop the 400 it has not read yet. So the sending side is shut
     * and what comes is read and dropped (see decode) until the client closes, or {@link #LINGER_MILLIS}.
     */
    private static void linger(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof io.netty.channel.socket.DuplexChannel d && d.isActive()) {
            d.shutdownOutput().addListener(f -> ctx.executor().schedule(() -> {
                ctx.close();
            }, LINGER_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS));
        } else {
            ctx.close();
        }
    }

    /** The longest a refused plain-HTTP connection is read after its 400 (nginx's lingering_timeout is 5 s). */
    static final long LINGER_MILLIS = 2000;

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, String hostname) {
        chosenYet = true;
        SniTable t = table.get();
        passthrough = passthroughStart == null ? null : t.passthrough(hostname);
        if (passthrough != null) {
            return ctx.executor().newSucceededFuture(null);
        }
        chosen = t.select(hostname);
        if (chosen == null) {
            // A listener that only passes TLS through, and this name is not passed through: no certificate to
            // answer with, so the connection is closed (replaceHandler) and what it sends is dropped (decode).
            refused = true;
            return ctx.executor().newSucceededFuture(null);
        }
        // A host that asks for client certificates gets a context that asks too (ADR 0075).
        policy = t.policyFor(hostname == null ? null : ServerCertificate.normalize(hostname));
        return ctx.executor().newSucceededFuture(chosen.context(policy));
    }

    /** Staples the chosen certificate's OCSP answer, where it has one, to the handshake about to start (ADR 0104). */
    @Override
    protected io.netty.handler.ssl.SslHandler newSslHandler(SslContext context, io.netty.buffer.ByteBufAllocator alloc) {
        io.netty.handler.ssl.SslHandler handler = super.newSslHandler(context, alloc);
        byte[] staple = chosen == null ? null : chosen.ocspResponse();
        if (staple != null && handler.engine() instanceof io.netty.handler.ssl.ReferenceCountedOpenSslEngine e) {
            e.setOcspResponse(staple);
        }
        return handler;
    }

    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) throws Exception {
        if (passthrough != null) {
            passthroughStart.start(ctx, hostname, passthrough);
            return;
        }
        // TLS ends here: a FIN closes the connection, as Netty does without half-closure (see handlerAdded).
        io.netty.channel.Channel ch0 = ctx.channel();
        ch0.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, false);
        if (ch0 instanceof io.netty.channel.socket.DuplexChannel d && d.isInputShutdown()) {
            ctx.close();
            return;
        }
        if (refused) {
            log.debug("{}: no certificate for TLS server name {}: closed", ctx.channel().remoteAddress(), hostname);
            ctx.close();
            return;
        }
        io.netty.channel.Channel ch = ctx.channel();
        super.replaceHandler(ctx, hostname, sslContext);
        io.netty.handler.ssl.SslHandler ssl = ch.pipeline().get(io.netty.handler.ssl.SslHandler.class);
        ch.attr(TlsConnection.KEY).set(new TlsConnection(hostname == null ? null : ServerCertificate.normalize(hostname),
                chosen, policy, ssl == null ? null : ssl.engine()));
        if (ssl != null && policy != null && policy.checksOcsp() && clientOcsp != null) {
            ch.pipeline().addAfter(ch.pipeline().context(ssl).name(), "client-ocsp",
                    new ClientOcspGate(clientOcsp.get(), policy));
        }
    }
}
