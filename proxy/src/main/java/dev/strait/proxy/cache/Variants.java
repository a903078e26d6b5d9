package dev.strait.proxy.cache;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Stored under a key whose responses carry {@code Vary}: the request header names they vary on. Each
 * response is stored under a secondary key made of the primary key, this marker's id and the
 * request's values of those headers (RFC 9111 4.1). A new marker (say, after a purge) has a new id, so
 * the variants of the old one can no longer be found and age out.
 */
final class Variants implements Stored {
    final String[] names;
    final long id = ThreadLocalRandom.current().nextLong();

    Variants(String[] names) {
        this.names = names;
    }

    /** The lower-case header names of a Vary value, sorted, without duplicates. */
    static String[] names(List<String> varyValues) {
        return varyValues.stream().flatMap(v -> Arrays.stream(v.split(","))).map(s -> s.trim().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty()).distinct().sorted().toArray(String[]::new);
    }

    boolean sameNames(String[] other) {
        return Arrays.equals(names, other);
    }

    /** The key of the variant that answers a request with {@code headers}. */
    String key(String primary, HttpHeaders headers) {
        StringBuilder sb = new StringBuilder(primary.length() + 64).append(primary).append('\u0000').append(id);
        for (String n : names) {
            sb.append('\u0000');
            List<String> values = headers.getAll(n);
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(values.get(i).trim()); // whitespace around values does not count (RFC 9111 4.1)
            }
        }
        return sb.toString();
    }

    @Override
    public int weight() {
        return 96 + names.length * 48;
    }

    @Override
    public long keepNanos(long nowMillis) {
        return 3_600_000_000_000L; // an hour; renewed whenever a variant is stored
    }
}
