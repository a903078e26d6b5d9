package dev.strait.proxy.tls;

import dev.strait.proxy.tls.ocsp.ClientOcsp;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Right after the {@code SslHandler} of a handshake whose policy asks OCSP about client certificates (ADR 0106): once
 * the handshake is done, asks the responders about the chain the client sent and holds what the connection
 * decrypts (its first request, maybe sent with the handshake's last flight) until the answer is recorded on its
 * {@link TlsConnection}, so that every request is judged with it, as nginx checks before reading a request. Reading
 * stops meanwhile; the HTTP layers see nothing of the wait. Leaves the pipeline once the answer is in, or at once
 * when there is nothing to ask (no certificate, or one that fails without asking).
 */
final class ClientOcspGate extends ChannelDuplexHandler {
    private final ClientOcsp checker;
    private final ClientValidationPolicy policy;
    /** What was decrypted while asking, in order; null unless asking. */
    private List<Object> held;
    private boolean readCompleteHeld;
    private boolean autoReadBefore;

    ClientOcspGate(ClientOcsp checker, ClientValidationPolicy policy) {
        this.checker = checker;
        this.policy = policy;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done && held == null) {
            if (done.isSuccess()) {
                ask(ctx);
            } else {
                ctx.pipeline().remove(this);
            }
        }
        ctx.fireUserEventTriggered(evt); // ALPN sets up HTTP/1.1 or HTTP/2 behind this meanwhile
    }

    private void ask(ChannelHandlerContext ctx) {
        TlsConnection tls = ctx.channel().attr(TlsConnection.KEY).get();
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        Certificate[] peer = null;
        try {
            peer = ssl == null ? null : ssl.engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            // no certificate shown: nothing to ask
        }
        List<ClientOcsp.Query> queries = policy.ocspQueries(peer);
        if (tls == null || queries.isEmpty()) {
            if (tls != null) {
                tls.ocspAnswered(null); // whatever fails the chain fails it before OCSP is looked at
            }
            ctx.pipeline().remove(this);
            return;
        }
        java.util.concurrent.CompletableFuture<String> verdict = checker.check(queries, policy.ocspResponder());
        if (verdict.isDone()) { // every answer kept: nothing to wait for
            tls.ocspAnswered(verdict.isCompletedExceptionally() ? ClientOcsp.FAILED : verdict.join());
            ctx.pipeline().remove(this);
            return;
        }
        held = new ArrayList<>(2);
        autoReadBefore = ctx.channel().config().isAutoRead();
        ctx.channel().config().setAutoRead(false);
        verdict.whenComplete((v, failure) -> ctx.executor().execute(
                () -> answered(ctx, tls, failure != null ? ClientOcsp.FAILED : v)));
    }

    private void answered(ChannelHandlerContext ctx, TlsConnection tls, String verdict) {
        if (ctx.isRemoved()) {
            return; // the connection closed meanwhile: handlerRemoved let go of what was held
        }
        tls.ocspAnswered(verdict);
        List<Object> out = held;
        held = null;
        for (Object m : out) {
            ctx.fireChannelRead(m);
        }
        if (readCompleteHeld || !out.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
        ctx.pipeline().remove(this);
        if (autoReadBefore) {
            ctx.channel().config().setAutoRead(true); // reads again
        } else {
            ctx.channel().read();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (held != null) {
            held.add(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held != null) {
            readCompleteHeld = true;
        } else {
            ctx.fireChannelReadComplete();
        }
    }

    /** Reads asked for behind this one wait for the answer (the SslHandler still reads what it needs itself). */
    @Override
    public void read(ChannelHandlerContext ctx) {
        if (held == null) {
            ctx.read();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        List<Object> out = held;
        held = null;
        if (out != null) {
            out.forEach(ReferenceCountUtil::release);
        }
    }
}
