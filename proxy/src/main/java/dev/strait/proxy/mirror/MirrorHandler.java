package dev.strait.proxy.mirror;

import dev.strait.model.Config;
import dev.strait.model.Route;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.handler.proxy.ProxyHandler;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import dev.strait.proxy.route.PrefixAware;
import dev.strait.proxy.upstream.LoopContext;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.AsciiString;
import io.netty.util.CharsetUtil;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule's action with its {@code mirrors} (ADR 0086): a sampled share of the requests the action serves is
 * also sent, as a {@link MirrorExchange} of its own, to each mirror's upstream, and the answers are dropped.
 *
 * <p>The client's exchange goes to the action first, then the copies to their mirrors, all in the same dispatch.
 * The body reaches the action as it would without mirrors and each copy gets its own copy of every part, so a
 * copy holds none of the client's buffers and the action's backpressure is the client's only one. The request's
 * {@code X-Request-Id} is settled before either goes, so the action's upstream and the mirrors see the same id.
 * Requests that switch protocols (WebSocket, CONNECT) are not copied.
 */
public final class MirrorHandler extends HandlerDecorator {
    private static final Logger log = LoggerFactory.getLogger(MirrorHandler.class);
    private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");
    /** Copies in flight to one mirror, over all loops, beyond which requests are not copied (Envoy's max_requests). */
    static final int MAX_IN_FLIGHT = 1024;

    /** How a copy ended, as {@code strait_mirror_requests_total} counts it. */
    enum Outcome {
        ANSWERED("answered"), FAILED("failed"), ABANDONED("abandoned"), SKIPPED("skipped");

        final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    private final Target[] targets;
    private final Config.RequestId requestId;

    private MirrorHandler(Handler action, Target[] targets, Config.RequestId requestId) {
        super(action);
        this.targets = targets;
        this.requestId = requestId;
    }

    /**
     * {@code action} with copies of its requests going to {@code mirrors}, each through the handler at the same
     * index of {@code proxies} (its upstream's proxy handler); {@code action} itself without mirrors.
     */
    public static Handler wrap(Handler action, String route, List<Route.Mirror> mirrors, List<Handler> proxies,
                               Config.RequestId requestId) {
        if (mirrors.isEmpty()) {
            return action;
        }
        Target[] targets = new Target[mirrors.size()];
        for (int i = 0; i < targets.length; i++) {
            Route.Mirror m = mirrors.get(i);
            targets[i] = new Target(proxies.get(i), m.percent() / 100, m.body(), new Shared(route, m.upstream()));
        }
        return new MirrorHandler(action, targets, requestId);
    }

    @Override
    public void handle(Exchange ex) {
        MirrorExchange[] copies = null;
        int n = 0;
        boolean bodies = false;
        if (!switchesProtocols(ex)) {
            for (Target t : targets) {
                if (!t.sampled()) {
                    continue;
                }
                if (!t.shared.enter()) {
                    t.shared.count(Outcome.SKIPPED);
                    continue;
                }
                if (copies == null) {
                    copies = new MirrorExchange[targets.length];
                    settleRequestId(ex);
                }
                boolean withBody = t.body && ex.hasBody();
                bodies |= withBody;
                copies[n++] = new MirrorExchange(ex, t, withBody);
            }
        }
        if (n == 0) {
            inner.handle(ex);
            return;
        }
        Tee tee = new Tee(ex, copies, n);
        try {
            inner.handle(tee);
            if (bodies) {
                tee.take(); // an action that answered without the body: the copies still get it
            }
        } finally {
            for (int i = 0; i < n; i++) {
                start(copies[i]);
            }
        }
    }

    /** A copy never fails its client: a handler that throws on it ends it, and only it. */
    private static void start(MirrorExchange copy) {
        try {
            copy.start();
        } catch (RuntimeException e) {
            log.error("mirror: sending a copy failed", e);
            copy.sendError(io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR);
        }
    }

    /** A request that becomes a tunnel: a copy would hold a second one open, with nothing to say on it. */
    private static boolean switchesProtocols(Exchange ex) {
        return ex.request().method() == HttpMethod.CONNECT || ProxyHandler.isWebSocketHandshake(ex);
    }

    /**
     * Settles the request's id before it is copied: a sane one from a peer {@code requestId.trustIncoming} trusts is
     * kept, any other replaced by a new one, which the action's upstream then gets too (and the access log shows).
     */
    private void settleRequestId(Exchange ex) {
        HttpHeaders h = ex.request().headers();
        String given = h.get(X_REQUEST_ID);
        if (given != null && AccessLog.saneRequestId(given)
                && requestId.trusts(ex.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null)) {
            return;
        }
        LoopContext lc = LoopContext.current();
        if (lc != null) {
            ByteBuf id = Unpooled.buffer(32);
            lc.writeRequestId(id);
            h.set(X_REQUEST_ID, id.toString(CharsetUtil.US_ASCII));
            id.release();
        }
    }

    @Override
    public Handler forPrefix(String prefix) {
        Handler action = inner instanceof PrefixAware pa ? pa.forPrefix(prefix) : inner;
        Target[] bound = new Target[targets.length];
        boolean same = action == inner;
        for (int i = 0; i < targets.length; i++) {
            bound[i] = targets[i].forPrefix(prefix);
            same &= bound[i] == targets[i];
        }
        return same ? this : new MirrorHandler(action, bound, requestId);
    }

    @Override
    protected Handler around(Handler bound) {
        return new MirrorHandler(bound, targets, requestId);
    }

    /** One mirror of the rule, in the form for one matched prefix (its proxy handler rewrites paths as the rule's). */
    static final class Target {
        final Handler proxy;
        private final double share;
        private final boolean body;
        private final Shared shared;

        Target(Handler proxy, double share, boolean body, Shared shared) {
            this.proxy = proxy;
            this.share = share;
            this.body = body;
            this.shared = shared;
        }

        boolean sampled() {
            return share >= 1 || ThreadLocalRandom.current().nextDouble() < share;
        }

        Target forPrefix(String prefix) {
            Handler bound = proxy instanceof PrefixAware pa ? pa.forPrefix(prefix) : proxy;
            return bound == proxy ? this : new Target(bound, share, body, shared);
        }

        void ended(Outcome outcome) {
            shared.leave();
            shared.count(outcome);
        }
    }

    /** What one mirror's forms share: its copies in flight and its counters. */
    static final class Shared {
        private final String route;
        private final String upstream;
        private final AtomicInteger inFlight = new AtomicInteger();
        /** By {@link Outcome#ordinal()}, looked up on first use (the meters live with the loops' context). */
        private volatile Counter[] counters;

        Shared(String route, String upstream) {
            this.route = route;
            this.upstream = upstream;
        }

        boolean enter() {
            if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
                inFlight.decrementAndGet();
                return false;
            }
            return true;
        }

        void leave() {
            inFlight.decrementAndGet();
        }

        void count(Outcome outcome) {
            Counter[] c = counters;
            if (c == null) {
                LoopContext lc = LoopContext.current();
                if (lc == null) {
                    return;
                }
                c = new Counter[Outcome.values().length];
                for (Outcome o : Outcome.values()) {
                    c[o.ordinal()] = lc.metrics().mirrorCopies(route, upstream, o.label);
                }
                counters = c;
            }
            c[outcome.ordinal()].increment();
        }
    }

    /**
     * The client's exchange as the action sees it: the same, except that its body passes here first, leaving a
     * copy of each part with every copy that carries the body.
     */
    private static final class Tee extends ForwardingExchange implements BodyReceiver {
        private final MirrorExchange[] copies;
        private final int n;
        private BodyReceiver action;
        private boolean taken;

        Tee(Exchange ex, MirrorExchange[] copies, int n) {
            super(ex);
            this.copies = copies;
            this.n = n;
        }

        @Override
        public void receiveBody(BodyReceiver receiver) {
            action = receiver;
            take();
        }

        void take() {
            if (!taken) {
                taken = true;
                ex.receiveBody(this);
            }
        }

        @Override
        public boolean requestIdSettled() {
            return true;
        }

        @Override
        public void onBodyPart(ByteBuf data) {
            int length = data.readableBytes();
            if (length > 0) {
                for (int i = 0; i < n; i++) {
                    if (copies[i].takesBody()) {
                        copies[i].part(ex.alloc().buffer(length).writeBytes(data, data.readerIndex(), length));
                    }
                }
            }
            if (action != null) {
                action.onBodyPart(data);
            } else {
                data.release();
            }
        }

        @Override
        public void onBodyEnd(HttpHeaders trailers) {
            for (int i = 0; i < n; i++) {
                copies[i].bodyEnd(trailers);
            }
            if (action != null) {
                action.onBodyEnd(trailers);
            }
        }

        @Override
        public void onBodyAbort(Throwable cause) {
            for (int i = 0; i < n; i++) {
                copies[i].abandon(cause);
            }
            if (action != null) {
                action.onBodyAbort(cause);
            }
        }
    }
}
