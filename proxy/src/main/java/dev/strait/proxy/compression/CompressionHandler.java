package dev.strait.proxy.compression;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpVersion;

/**
 * A rule with {@code compression}: its action answers through a {@link CompressingExchange}, which sends the
 * answers of the rule's media types compressed in the rule's coding the client's {@code Accept-Encoding} prefers
 * (ADR 0094, 0097). Made with the table around the action, inside its pacing (a {@code responseRate} counts the bytes
 * that go out).
 */
public final class CompressionHandler extends HandlerDecorator {
    /** A rule's settings, compiled; {@code codings} those of the rule this process can use, in the rule's order. */
    record Policy(MediaTypes types, long minBytes, int level, Coding[] codings) {}

    private final Policy policy;

    private CompressionHandler(Handler inner, Policy policy) {
        super(inner);
        this.policy = policy;
    }

    /**
     * {@code handler} with the rule's compression, or {@code handler} itself for a rule without. Loads the codings'
     * libraries (off the event loops); one that does not load is left out (and reported once).
     */
    public static Handler wrap(Handler handler, Route.Compression compression) {
        if (compression == null) {
            return handler;
        }
        return new CompressionHandler(handler, new Policy(new MediaTypes(compression.types()), compression.minBytes(),
                compression.level(), usable(compression.codings())));
    }

    /** Of the rule's codings, those whose library loads here; gzip when none does (it is always there). */
    static Coding[] usable(java.util.List<String> codings) {
        Coding[] usable = codings.stream().map(Coding::of).filter(Coding::available).toArray(Coding[]::new);
        return usable.length > 0 ? usable : new Coding[] {Coding.GZIP};
    }

    @Override
    public void handle(Exchange ex) {
        inner.handle(new CompressingExchange(ex, policy, coding(ex)));
    }

    /**
     * The coding the request's answer may be compressed in, or null: one of the rule's its client takes, unless it is
     * HEAD (whose answer keeps the {@code Content-Length} of the uncompressed body, as nginx's) or HTTP/1.0 (a
     * compressed stream of unknown length would need the connection closed at its end; nginx's
     * {@code gzip_http_version 1.1}).
     */
    private Coding coding(Exchange ex) {
        if (ex.isHead() || ex.request().protocolVersion() == HttpVersion.HTTP_1_0) {
            return null;
        }
        HttpHeaders h = ex.request().headers();
        java.util.List<String> all = h.getAll(HttpHeaderNames.ACCEPT_ENCODING);
        return all.isEmpty() ? null
                : AcceptEncoding.best(all.size() == 1 ? all.get(0) : String.join(",", all), policy.codings());
    }

    @Override
    protected Handler around(Handler bound) {
        return new CompressionHandler(bound, policy);
    }
}
