package dev.strait.proxy.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigDelta;
import dev.strait.model.ConfigParser;
import dev.strait.model.ConfigWriter;
import dev.strait.model.HostPort;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.ConfigReloader;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.FatalErrors;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a connection to the operator and applies what it sends. One thread of its own (never a
 * serving event loop): snapshots are parsed, validated and compiled there, then swapped in with one
 * reference write, so requests never wait for a control-plane change.
 *
 * <p>Pipeline, in order: (TLS) -> 4-byte length framing -> idle detection (ping when quiet, redial when
 * the operator is silent) -> {@link Session} (the protocol).
 */
public final class ControlClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControlClient.class);
    static final int PROTOCOL = 1;
    /** Announced in hello: this proxy applies {@code delta} messages (docs/control-channel.md). */
    static final String DELTA = "delta";
    private static final String MISMATCH = "the snapshot's content hashes to version ";
    static final int MAX_FRAME = 64 * 1024 * 1024;
    private static final int PING_SECONDS = 10;
    private static final int SILENCE_SECONDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HostPort operator;
    private final Identity identity;
    private final StateDir state;
    private final Backoff backoff;
    private final Supplier<SslContext> ssl;
    private final Supplier<String> token;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final CompletableFuture<Snapshot> first = new CompletableFuture<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong deltas = new AtomicLong();
    private final AtomicLong resyncs = new AtomicLong();
    /**
     * The config document of the version last accepted, as the operator sent it: what a delta applies to.
     * Touched only on the client's own thread; rebuilt from the serving config when its version differs.
     */
    private ObjectNode document;
    private String documentVersion;
    /**
     * What the last accepted config's parse and build made per Route, reused for the nodes and values a
     * delta left alone (ADR 0025): a change costs about what it changed, not the whole table. Touched only
     * on the client's own thread.
     */
    private final ConfigParser.Memo parsed = new ConfigParser.Memo();
    private final SnapshotBuilder.Reuse built = new SnapshotBuilder.Reuse();
    /** Runs the delta path on copies after an accepted config, until compiled (ADR 0030). */
    private final WarmUp warmUp = new WarmUp(Integer.getInteger("strait.proxy.warmUpIterations", WarmUp.ITERATIONS));
    private volatile boolean closed;
    private volatile Channel channel;
    /** The config the proxy started serving with: what its listeners, loops and admin were made from (guarded by this). */
    private Config started;
    // Guarded by this: before attach() accepted snapshots wait in `latest`; after it they are swapped in.
    private Serving serving;
    private ProxyMetrics metrics;
    private Snapshot latest;

    /**
     * @param state where accepted snapshots are kept, or null
     * @param ssl   TLS to the operator, asked for at every dial (so a rotated CA bundle is re-read); null for plain TCP
     * @param token a bearer token for hello, asked for at every dial (projected tokens rotate); null or
     *              a null answer for none
     */
    public ControlClient(HostPort operator, Identity identity, StateDir state, Backoff backoff,
                         Supplier<SslContext> ssl, Supplier<String> token) {
        this.operator = operator;
        this.identity = identity;
        this.state = state;
        this.backoff = backoff.copy();
        this.ssl = ssl;
        this.token = token;
    }

    /**
     * Starts dialing; returns the kept snapshot from the state directory when there is a good one, so
     * the proxy can serve before the operator answers, else null (then wait with {@link #firstSnapshot}).
     */
    public Snapshot start() {
        Snapshot kept = state == null ? null : state.load();
        if (kept != null) {
            synchronized (this) {
                latest = kept;
            }
            log.info("serving kept snapshot {} from {} until the operator answers", kept.version(), state.file());
        }
        connect();
        return kept;
    }

    /** Completes with the first snapshot the operator sends that this proxy accepts. */
    public CompletableFuture<Snapshot> firstSnapshot() {
        return first;
    }

    /** From now on accepted snapshots are swapped into {@code serving}; one accepted before is swapped now. */
    public void attach(Serving serving, ProxyMetrics metrics) {
        synchronized (this) {
            this.serving = serving;
            this.metrics = metrics;
            this.started = serving.snapshot().config();
            if (latest != null && !latest.version().equals(serving.snapshot().version())) {
                swap(latest);
            }
            latest = null;
        }
    }

    public long accepted() {
        return accepted.get();
    }

    public long rejected() {
        return rejected.get();
    }

    /** Deltas accepted so far (they count in {@link #accepted()} too). */
    public long deltas() {
        return deltas.get();
    }

    /** Deltas refused because they did not fit what this proxy serves; each asked for a whole snapshot. */
    public long resyncs() {
        return resyncs.get();
    }

    /** Throwaway delta applications done so far to warm up that path (ADR 0030), and those given up for a message. */
    public long warmUpIterations() {
        return warmUp.iterationsDone();
    }

    public long warmUpsAbandoned() {
        return warmUp.abandoned();
    }

    /** Successful connections so far (1 after the first dial, 2 after one redial, ...). */
    public long connects() {
        return connects.get();
    }

    public boolean connected() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    private void connect() {
        if (closed) {
            return;
        }
        SslContext tls;
        try {
            tls = ssl == null ? null : ssl.get();
        } catch (RuntimeException e) {
            redial("cannot set up TLS: " + e.getMessage());
            return;
        }
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), operator.host(), operator.port()));
                        }
                        ch.pipeline()
                                .addLast("frames", new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4))
                                .addLast("length", new LengthFieldPrepender(4))
                                .addLast("idle", new IdleStateHandler(SILENCE_SECONDS, PING_SECONDS, 0, TimeUnit.SECONDS))
                                .addLast("session", new Session());
                    }
                });
        ChannelFuture f = b.connect(operator.host(), operator.port());
        f.addListener(done -> {
            if (!done.isSuccess()) {
                redial("cannot connect: " + done.cause().getMessage());
                return;
            }
            connects.incrementAndGet();
            channel = f.channel();
            f.channel().closeFuture().addListener(c -> redial("connection closed"));
        });
    }

    private void redial(String why) {
        channel = null;
        if (closed) {
            return;
        }
        long delay = backoff.nextMillis();
        log.info("control channel to {}: {}; redialing in {} ms (the current table keeps serving)", operator, why, delay);
        group.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }

    private String servingVersion() {
        Snapshot s = current();
        return s == null ? null : s.version();
    }

    /** What is served (or, before attach, what will be), or null. */
    private synchronized Snapshot current() {
        return serving != null ? serving.snapshot() : latest;
    }

    /** The document of the current version, for a delta to apply to. */
    private ObjectNode document(Snapshot current) {
        if (!current.version().equals(documentVersion)) {
            document = ConfigWriter.toTree(current.config());
            documentVersion = current.version();
        }
        return document;
    }

    /** Validates and applies one snapshot; returns null when accepted, else the error for the NACK. */
    String apply(String version, String configText) {
        return apply(version, configText, null);
    }

    /**
     * As above; {@code document} is the config as a tree when the caller has it: it is validated as it is
     * (not written out and read back; the parser's messages are the same) and kept for the next delta.
     */
    private String apply(String version, String configText, ObjectNode document) {
        Snapshot next;
        try {
            Config config = document != null ? ConfigParser.parse(document, "control channel", parsed)
                    : ConfigParser.parse(configText, "control channel");
            next = SnapshotBuilder.build(config, "control channel", built);
        } catch (InvalidConfigException e) {
            return e.getMessage();
        }
        if (!next.version().equals(version)) {
            return MISMATCH + next.version() + ", not " + version;
        }
        if (document != null) {
            this.document = document;
            this.documentVersion = version;
            warmUp.resume(document, parsed, built);
        }
        synchronized (this) {
            if (serving == null) {
                latest = next;
            } else if (!serving.snapshot().version().equals(version)) {
                swap(next);
            }
        }
        first.complete(next);
        if (state != null) {
            try {
                state.save(next.config());
            } catch (IOException e) {
                log.warn("cannot keep snapshot {} in {}: {}", version, state.file(), e.toString());
            }
        }
        return null;
    }

    private void swap(Snapshot next) {
        Snapshot was = serving.snapshot();
        serving.swap(next);
        // Listeners, workers, transport, admin and resolver stay as the proxy started (a pod restart applies them).
        List<String> pending = ConfigReloader.restartOnlyChanges(started, next.config());
        if (metrics != null) {
            metrics.reloadAccepted();
            metrics.configVersion(next.version());
            metrics.restartPending(!pending.isEmpty());
        }
        log.info("control channel: now serving version {} (was {})", next.version(), was.version());
        if (!pending.isEmpty() && !pending.equals(ConfigReloader.restartOnlyChanges(started, was.config()))) {
            log.warn("control channel: these take effect when the proxy restarts, not now: {}; everything else applies"
                    + " now", String.join("; ", pending));
        }
    }

    private static ByteBuf message(ObjectNode n) {
        return Unpooled.wrappedBuffer(n.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The protocol on one connection. */
    private final class Session extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ObjectNode hello = JSON.createObjectNode().put("type", "hello").put("protocol", PROTOCOL);
            hello.putArray("features").add(DELTA);
            ObjectNode node = hello.putObject("node");
            if (identity.namespace() != null) {
                node.put("namespace", identity.namespace()).put("pod", identity.pod());
            } else {
                node.put("ingressClass", identity.ingressClass());
            }
            String v = servingVersion();
            if (v != null) {
                hello.put("version", v);
            }
            String t = token == null ? null : token.get();
            if (t != null && !t.isBlank()) {
                hello.put("token", t.trim());
            }
            ctx.writeAndFlush(message(hello));
            log.info("control channel to {} open; said hello as {}", operator, identity);
            ctx.fireChannelActive();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) throws IOException {
            warmUp.yieldToMessage(); // before reading it: a change never waits behind the warm-up
            JsonNode msg = JSON.readTree(ByteBufUtil.getBytes(frame));
            switch (msg.path("type").asText("")) {
                case "snapshot" -> snapshot(ctx, msg);
                case "delta" -> delta(ctx, msg);
                case "ping" -> {
                    if (document != null && documentVersion.equals(servingVersion())) {
                        warmUp.resume(document, parsed, built); // nothing changed: go on where it stopped
                    }
                }
                case "error" -> log.error("the operator refused this proxy: {}", msg.path("message").asText());
                default -> log.warn("ignoring control message of type {}", msg.path("type"));
            }
        }

        private void snapshot(ChannelHandlerContext ctx, JsonNode msg) {
            backoff.reset();
            String version = msg.path("version").asText("");
            JsonNode config = msg.path("config");
            String error = config instanceof ObjectNode o ? apply(version, null, o) : apply(version, config.toString(), null);
            answer(ctx, version, error);
        }

        /**
         * Applies a delta to the current document when it was made against the version served now, then
         * validates the result exactly as a snapshot. A delta that does not fit (another base, a result
         * that does not hash to its version) is NACKed with {@code resync}, and the operator sends the
         * whole snapshot; a delta whose result is an invalid config is NACKed like such a snapshot.
         */
        private void delta(ChannelHandlerContext ctx, JsonNode msg) {
            backoff.reset();
            String version = msg.path("version").asText("");
            String base = msg.path("base").asText("");
            Snapshot current = current();
            if (current == null || !current.version().equals(base)) {
                resync(ctx, version, "delta base " + base + " is not the served version "
                        + (current == null ? "(none)" : current.version()) + "; a whole snapshot is needed");
                return;
            }
            ObjectNode result;
            try {
                result = ConfigDelta.apply(document(current), msg);
            } catch (IllegalArgumentException e) {
                resync(ctx, version, "delta does not apply to " + base + ": " + e.getMessage()
                        + "; a whole snapshot is needed");
                return;
            }
            String error = apply(version, null, result);
            if (error != null && error.startsWith(MISMATCH)) {
                resync(ctx, version, "delta from " + base + ": " + error + "; a whole snapshot is needed");
                return;
            }
            if (error == null) {
                deltas.incrementAndGet();
            }
            answer(ctx, version, error);
        }

        private void resync(ChannelHandlerContext ctx, String version, String why) {
            resyncs.incrementAndGet();
            log.warn("control channel: {}", why);
            ctx.writeAndFlush(message(JSON.createObjectNode().put("type", "nack").put("version", version)
                    .put("error", why).put("resync", true)));
        }

        private void answer(ChannelHandlerContext ctx, String version, String error) {
            ObjectNode reply = JSON.createObjectNode().put("version", version);
            if (error == null) {
                accepted.incrementAndGet();
                reply.put("type", "ack");
            } else {
                rejected.incrementAndGet();
                synchronized (ControlClient.this) {
                    if (metrics != null) {
                        metrics.reloadRejected();
                    }
                }
                log.error("control channel: refused version {}; still serving {}. {}", version, servingVersion(), error);
                reply.put("type", "nack").put("error", error);
            }
            ctx.writeAndFlush(message(reply));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent e) {
                if (e.state() == IdleState.READER_IDLE) {
                    log.warn("control channel to {}: operator silent for {} s, closing", operator, SILENCE_SECONDS);
                    ctx.close();
                } else if (e.state() == IdleState.WRITER_IDLE) {
                    ctx.writeAndFlush(message(JSON.createObjectNode().put("type", "ping")), ctx.voidPromise());
                }
            } else {
                ctx.fireUserEventTriggered(evt);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
            log.warn("control channel to {} failed: {}", operator, cause.toString());
            ctx.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        warmUp.close();
        Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
