package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.strait.model.Route;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Duration;
import java.util.Date;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Cache-Control parsing and the freshness rules of RFC 9111, without sockets. */
class FreshnessTest {
    private static final long NOW = 1_800_000_000_000L;
    private static final CachePolicy DEFAULTS = CachePolicy.of("r", new Route.Cache(true));

    static Stream<Arguments> directives() {
        return Stream.of(
                arguments("empty", "", CacheControl.NONE),
                arguments("max-age", "max-age=60", cc(60, -1, false, false, false, false, -1, -1)),
                arguments("case and spaces", " Max-Age = 60 , PUBLIC", new CacheControl(60, -1, false, false, false,
                        true, false, false, -1, -1)),
                arguments("s-maxage and max-age", "max-age=10, s-maxage=20", cc(10, 20, false, false, false, false, -1, -1)),
                arguments("quoted argument", "max-age=\"30\"", cc(30, -1, false, false, false, false, -1, -1)),
                arguments("bad number is stale", "max-age=abc", cc(0, -1, false, false, false, false, -1, -1)),
                arguments("twice: the smaller wins", "max-age=100, max-age=5", cc(5, -1, false, false, false, false, -1, -1)),
                arguments("huge is capped", "max-age=99999999999999", cc(2147483648L, -1, false, false, false, false, -1, -1)),
                arguments("no-store", "no-store", cc(-1, -1, true, false, false, false, -1, -1)),
                arguments("no-cache with fields counts whole", "no-cache=\"set-cookie, x-a\", max-age=5",
                        cc(5, -1, false, true, false, false, -1, -1)),
                arguments("private with fields counts whole", "private=\"x\"", cc(-1, -1, false, false, true, false, -1, -1)),
                arguments("must-revalidate", "must-revalidate", cc(-1, -1, false, false, false, true, -1, -1)),
                arguments("RFC 5861", "max-age=1, stale-while-revalidate=30, stale-if-error=600",
                        cc(1, -1, false, false, false, false, 30, 600)),
                arguments("unknown directives ignored", "foo, bar=\"a,b\", max-age=7", cc(7, -1, false, false, false,
                        false, -1, -1)));
    }

    private static CacheControl cc(long maxAge, long sMaxAge, boolean noStore, boolean noCache, boolean priv,
                                   boolean mustRevalidate, long swr, long sie) {
        return new CacheControl(maxAge, sMaxAge, noStore, noCache, priv, false, mustRevalidate, false, swr, sie);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("directives")
    void parsesDirectives(String name, String value, CacheControl expected) {
        assertThat(CacheControl.parse(value)).isEqualTo(expected);
    }

    @Test
    void severalFieldsAreOneList() {
        HttpHeaders h = new DefaultHttpHeaders().add("cache-control", "max-age=60").add("cache-control", "private");
        assertThat(CacheControl.of(h).isPrivate()).isTrue();
        assertThat(CacheControl.of(h).maxAge()).isEqualTo(60);
    }

    private static HttpHeaders headers(String... pairs) {
        HttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < pairs.length; i += 2) {
            h.add(pairs[i], pairs[i + 1]);
        }
        return h;
    }

    private static String date(long millis) {
        return DateFormatter.format(new Date(millis));
    }

    @Test
    void sMaxAgeWinsOverMaxAgeWinsOverExpires() {
        assertThat(Freshness.lifetime(CacheControl.parse("max-age=10, s-maxage=20"), headers(), 0, NOW)).isEqualTo(20_000);
        assertThat(Freshness.lifetime(CacheControl.parse("max-age=10"),
                headers("date", date(NOW), "expires", date(NOW + 99_000)), 0, NOW)).isEqualTo(10_000);
        assertThat(Freshness.lifetime(CacheControl.NONE, headers("date", date(NOW), "expires", date(NOW + 99_000)), 0,
                NOW + 5_000)).isEqualTo(99_000);
    }

    @Test
    void expiresWithoutDateCountsFromWhenTheResponseArrived() {
        // RFC 9110 6.6.1: a recipient without Date uses the time it received the response.
        assertThat(Freshness.lifetime(CacheControl.NONE, headers("expires", date(NOW + 600_000)), 0, NOW))
                .isEqualTo(600_000);
        Freshness f = Freshness.of(DEFAULTS, 200, headers("expires", date(NOW + 600_000)), false, NOW, NOW);
        assertThat(f.storable()).isTrue();
        assertThat(f.lifetime()).isEqualTo(600_000);
    }

    @Test
    void invalidExpiresIsAlreadyExpired() {
        assertThat(Freshness.lifetime(CacheControl.NONE, headers("expires", "0"), 5_000, NOW)).isZero();
    }

    @Test
    void withoutAnyFreshnessTheRuleDefaultApplies() {
        assertThat(Freshness.lifetime(CacheControl.NONE, headers(), 5_000, NOW)).isEqualTo(5_000);
    }

    @Test
    void initialAgeCountsAgeHeaderAndTheRoundTrip() {
        // Age 30 from an upstream cache, one second on the wire.
        assertThat(Freshness.initialAge(headers("age", "30"), NOW - 1000, NOW)).isEqualTo(31_000);
        // A Date 50 s ago (apparent age) is larger than the corrected Age value.
        assertThat(Freshness.initialAge(headers("date", date(NOW - 50_000), "age", "2"), NOW, NOW)).isEqualTo(50_000);
        // A Date in the future counts nothing.
        assertThat(Freshness.initialAge(headers("date", date(NOW + 50_000)), NOW, NOW)).isZero();
    }

    static Stream<Arguments> storability() {
        return Stream.of(
                arguments("200 max-age", 200, new String[] {"cache-control", "max-age=60"}, null),
                arguments("404 max-age", 404, new String[] {"cache-control", "max-age=60"}, null),
                arguments("302 is not stored", 302, new String[] {"cache-control", "max-age=60"}, "status 302"),
                arguments("500 is not stored", 500, new String[] {"cache-control", "max-age=60"}, "status 500"),
                arguments("no-store", 200, new String[] {"cache-control", "max-age=60, no-store"}, "no-store"),
                arguments("private", 200, new String[] {"cache-control", "private, max-age=60"}, "private"),
                arguments("Set-Cookie", 200, new String[] {"cache-control", "max-age=60", "set-cookie", "a=b"},
                        "Set-Cookie"),
                arguments("Vary *", 200, new String[] {"cache-control", "max-age=60", "vary", "*"}, "Vary: *"),
                // RFC 9111 4.1: every member of every Vary field counts
                arguments("Vary * in a list", 200, new String[] {"cache-control", "max-age=60", "vary",
                        "Accept-Encoding, *"}, "Vary: *"),
                arguments("Vary * in a second field", 200, new String[] {"cache-control", "max-age=60", "vary",
                        "Accept-Encoding", "vary", "*"}, "Vary: *"),
                arguments("Vary names only", 200, new String[] {"cache-control", "max-age=60", "vary",
                        "Accept-Encoding, Accept-Language", "vary", "Cookie"}, null),
                arguments("nothing to go on", 200, new String[] {}, "no freshness and no validators"),
                arguments("validators only: stored to revalidate", 200, new String[] {"etag", "\"1\""}, null),
                arguments("no-cache without validators", 200, new String[] {"cache-control", "no-cache"},
                        "no-cache without validators"),
                arguments("no-cache with an ETag", 200, new String[] {"cache-control", "no-cache", "etag", "\"1\""},
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storability")
    void decidesWhatMayBeStored(String name, int status, String[] pairs, String why) {
        Freshness f = Freshness.of(DEFAULTS, status, headers(pairs), false, NOW, NOW);
        assertThat(f.uncacheable()).isEqualTo(why);
    }

    @Test
    void authorizationNeedsTheOptIn() {
        HttpHeaders h = headers("cache-control", "public, max-age=60");
        assertThat(Freshness.of(DEFAULTS, 200, h, true, NOW, NOW).uncacheable()).isEqualTo("request with Authorization");
        CachePolicy optIn = CachePolicy.of("r", with(c -> new Route.Cache(true, c.maxBodySize(), c.defaultTtl(), false,
                false, true, false, c.staleWhileRevalidate(), c.staleIfError(), c.hitForPass(), c.lockTimeout())));
        assertThat(Freshness.of(optIn, 200, h, true, NOW, NOW).storable()).isTrue();
    }

    @Test
    void setCookieWithTheOptInIsStored() {
        CachePolicy optIn = CachePolicy.of("r", with(c -> new Route.Cache(true, c.maxBodySize(), c.defaultTtl(), false,
                true, false, false, c.staleWhileRevalidate(), c.staleIfError(), c.hitForPass(), c.lockTimeout())));
        assertThat(Freshness.of(optIn, 200, headers("cache-control", "max-age=5", "set-cookie", "a=b"), false, NOW, NOW)
                .storable()).isTrue();
    }

    @Test
    void ignoringCacheControlUsesTheDefaultTtl() {
        CachePolicy ignore = CachePolicy.of("r", with(c -> new Route.Cache(true, c.maxBodySize(),
                Duration.ofSeconds(30), true, false, false, false, c.staleWhileRevalidate(), c.staleIfError(),
                c.hitForPass(), c.lockTimeout())));
        Freshness f = Freshness.of(ignore, 200, headers("cache-control", "no-store, max-age=5"), false, NOW, NOW);
        assertThat(f.storable()).isTrue();
        assertThat(f.lifetime()).isEqualTo(30_000);
    }

    @Test
    void staleWindowsComeFromTheResponseElseTheRule() {
        CachePolicy rule = CachePolicy.of("r", with(c -> new Route.Cache(true, c.maxBodySize(), c.defaultTtl(), false,
                false, false, false, Duration.ofSeconds(7), Duration.ofSeconds(9), c.hitForPass(), c.lockTimeout())));
        Freshness own = Freshness.of(rule, 200, headers("cache-control", "max-age=1, stale-while-revalidate=2,"
                + " stale-if-error=3"), false, NOW, NOW);
        assertThat(own.staleWhileRevalidate()).isEqualTo(2_000);
        assertThat(own.staleIfError()).isEqualTo(3_000);
        Freshness dflt = Freshness.of(rule, 200, headers("cache-control", "max-age=1"), false, NOW, NOW);
        assertThat(dflt.staleWhileRevalidate()).isEqualTo(7_000);
        assertThat(dflt.staleIfError()).isEqualTo(9_000);
    }

    @Test
    void mustRevalidateAndSMaxAgeForbidStaleAnswers() {
        CachePolicy rule = CachePolicy.of("r", with(c -> new Route.Cache(true, c.maxBodySize(), c.defaultTtl(), false,
                false, false, false, Duration.ofSeconds(7), Duration.ofSeconds(9), c.hitForPass(), c.lockTimeout())));
        for (String cc : new String[] {"max-age=1, must-revalidate, stale-if-error=60", "s-maxage=1",
                "max-age=1, proxy-revalidate"}) {
            Freshness f = Freshness.of(rule, 200, headers("cache-control", cc), false, NOW, NOW);
            assertThat(f.staleWhileRevalidate()).as(cc).isZero();
            assertThat(f.staleIfError()).as(cc).isZero();
        }
    }

    @Test
    void entryIsFreshForItsLifetimeLessItsInitialAge() {
        HttpHeaders h = headers("cache-control", "max-age=60", "age", "20");
        Freshness f = Freshness.of(DEFAULTS, 200, h, false, NOW, NOW);
        assertThat(f.lifetime() - f.initialAge()).isEqualTo(40_000);
    }

    private static Route.Cache with(java.util.function.UnaryOperator<Route.Cache> f) {
        return f.apply(new Route.Cache(true));
    }
}
