package dev.strait.proxy.cors;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeadLines;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;

/**
 * A rule's action with its {@code cors} (ADR 0065): a preflight from an allowed origin ({@code OPTIONS}
 * with {@code Access-Control-Request-Method}) is answered 204 here, as ingress-nginx does, and any other
 * request from one reaches the action through a {@link CorsExchange}. Requests without an allowed
 * {@code Origin} reach the action as they are. Made with the table around the rule's handler
 * ({@link HandlerDecorator}).
 */
public final class CorsHandler extends HandlerDecorator {
    private final CorsPolicy policy;

    private CorsHandler(Handler inner, CorsPolicy policy) {
        super(inner);
        this.policy = policy;
    }

    /** What a rule's guard needs of its {@code cors}: which preflights pass, and the fields a refusal gets. */
    public static final class Fields {
        private final CorsPolicy policy;

        private Fields(CorsPolicy policy) {
            this.policy = policy;
        }

        /**
         * Whether {@code request} is a preflight this rule answers: the rule's guards let it through, as nginx
         * answers it in its rewrite phase, before limits and access checks; browsers send no credentials with
         * a preflight, and its answer tells nothing but the CORS policy.
         */
        public boolean preflights(HttpRequest request) {
            return isPreflight(request) && policy.allowOrigin(request.headers().get(HttpHeaderNames.ORIGIN)) != null;
        }

        /** Adds the CORS fields to {@code headers} when {@code request} comes from an allowed origin. */
        public void addFields(HttpRequest request, HttpHeaders headers) {
            String allow = policy.allowOrigin(request.headers().get(HttpHeaderNames.ORIGIN));
            if (allow != null) {
                CorsExchange.fields(headers, policy, allow);
            }
        }
    }

    /** The guard's view of {@code cors}, or null without it. */
    public static Fields fields(Route.Cors cors) {
        return cors == null ? null : new Fields(new CorsPolicy(cors));
    }

    private static boolean isPreflight(HttpRequest r) {
        return r.method().equals(HttpMethod.OPTIONS) && r.headers().contains(HttpHeaderNames.ACCESS_CONTROL_REQUEST_METHOD);
    }

    /** {@code handler} with the rule's CORS, or {@code handler} itself for a rule without. */
    public static Handler wrap(Handler handler, Route.Cors cors) {
        return cors == null ? handler : new CorsHandler(handler, new CorsPolicy(cors));
    }

    @Override
    public void handle(Exchange ex) {
        String allow = policy.allowOrigin(ex.request().headers().get(HttpHeaderNames.ORIGIN));
        if (allow == null) {
            inner.handle(ex);
            return;
        }
        if (isPreflight(ex.request())) {
            StringBuilder head = new StringBuilder("HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: ")
                    .append(allow).append("\r\n");
            if (!allow.equals("*")) {
                head.append("Vary: Origin\r\n");
            }
            byte[] h = HeadLines.concat(head.toString().getBytes(StandardCharsets.ISO_8859_1), policy.preflightLines);
            ex.sendPreEncoded(h, Unpooled.EMPTY_BUFFER);
            return;
        }
        inner.handle(new CorsExchange(ex, policy, allow));
    }

    @Override
    protected Handler around(Handler bound) {
        return new CorsHandler(bound, policy);
    }
}
