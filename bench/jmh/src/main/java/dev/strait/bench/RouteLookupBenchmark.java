package dev.strait.bench;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Limits;
import dev.strait.model.Route;
import dev.strait.proxy.http.PathNormalizer;
import dev.strait.proxy.route.CompiledRule;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.route.RouteTableBuilder;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Choosing the rule for a request in a table of 1k or 10k routes: {@link RouteTable#find} as
 * {@code Http1ServerHandler} calls it, built by {@link RouteTableBuilder} from a config (so the table is the one
 * a real config gives).
 *
 * <p>Two shapes: {@code hosts}, one virtual host per route (an ingress with many sites: exact host,
 * then element-wise prefix {@code /api}); {@code paths}, one {@code *} host with one prefix rule per
 * route (many services under one host: the prefix walk from the longest element boundary). The
 * requests cycle through 4096 pre-made targets spread over all routes in random order, so neither
 * the branch predictor nor the caches see one route only.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2) // pinned to one CPU, C2 needs ~5 s (JIT threads share the core)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RouteLookupBenchmark {
    private static final int TARGETS = 4096; // a power of two: the index wraps with a mask

    @Param({"1000", "10000"})
    public int routes;

    @Param({"hosts", "paths"})
    public String shape;

    private RouteTable table;
    private final String[] hosts = new String[TARGETS];       // normalised, as find() takes them
    private final String[] paths = new String[TARGETS];
    private final String[] hostHeaders = new String[TARGETS]; // as they arrive: with a port
    private final String[] rawPaths = new String[TARGETS];
    private final HttpHeaders headers = new DefaultHttpHeaders();
    private int next;

    @Setup
    public void setUp() throws Exception {
        Config config = config(routes, shape);
        // Only the lookup is measured: every rule gets the same do-nothing handler.
        table = RouteTableBuilder.build(config, (action, path) -> exchange -> { });
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < TARGETS; i++) {
            int r = random.nextInt(routes);
            if (shape.equals("hosts")) {
                hosts[i] = "svc" + r + ".example.com";
                paths[i] = "/api/v1/items/" + i;
            } else {
                hosts[i] = "www.example.com";
                paths[i] = "/svc" + r + "/v1/items/" + i;
            }
            hostHeaders[i] = hosts[i] + ":8080";
            rawPaths[i] = paths[i].replace("/v1/", "/v1/./");
            if (table.find(hosts[i], paths[i], HttpMethod.GET, headers) == null) {
                throw new IllegalStateException("no rule for " + hosts[i] + paths[i] + ": the table is not what the benchmark assumes");
            }
        }
        if (table.find("unknown.example.org", "/nothing/here", HttpMethod.GET, headers) != null) {
            throw new IllegalStateException("the miss case found a rule");
        }
    }

    /** find() with the host and path already normalised. */
    @Benchmark
    public CompiledRule find() {
        int i = next++ & (TARGETS - 1);
        return table.find(hosts[i], paths[i], HttpMethod.GET, headers);
    }

    /** What the request path does per request: Host header and path normalised, then find(). */
    @Benchmark
    public CompiledRule normalizeAndFind() {
        int i = next++ & (TARGETS - 1);
        String host = RouteTable.normalizeHost(hostHeaders[i]);
        String path = PathNormalizer.normalize(rawPaths[i]);
        return table.find(host, path, HttpMethod.GET, headers);
    }

    /** No rule answers (404): unknown host in {@code hosts}, unknown prefix in {@code paths}. */
    @Benchmark
    public CompiledRule miss() {
        return table.find("unknown.example.org", "/nothing/here", HttpMethod.GET, headers);
    }

    /**
     * The config, built from the model's records rather than parsed: a 10k-host config file is over
     * the YAML reader's 3 Mi code point limit (ConfigParser refuses it), and the lookup does not
     * depend on where the table came from.
     */
    static Config config(int routes, String shape) {
        Route.Action ok = new Route.Respond(200, "ok", Map.of());
        List<Route> list = new ArrayList<>();
        if (shape.equals("hosts")) {
            for (int r = 0; r < routes; r++) {
                list.add(new Route("svc" + r, List.of("svc" + r + ".example.com"), List.of(
                        rule(Route.PathType.Exact, "/healthz", ok),
                        rule(Route.PathType.Prefix, "/api", ok),
                        rule(Route.PathType.Prefix, "/", ok))));
            }
        } else if (shape.equals("paths")) {
            List<Route.Rule> rules = new ArrayList<>();
            for (int r = 0; r < routes; r++) {
                rules.add(rule(Route.PathType.Prefix, "/svc" + r, ok));
            }
            list.add(new Route("site", List.of("*"), rules));
        } else {
            throw new IllegalArgumentException("shape " + shape);
        }
        return new Config(1, Config.Transport.AUTO, new Config.AccessLog(false), Limits.DEFAULTS,
                List.of(new Config.Listener("http", HostPort.parse("127.0.0.1:8080"), null)), null, List.of(), list);
    }

    private static Route.Rule rule(Route.PathType type, String path, Route.Action action) {
        return new Route.Rule(List.of(new Route.Match(new Route.PathMatch(type, path), null, List.of())), action,
                null, null, null);
    }
}
