package dev.strait.proxy.compression;

import java.util.List;

/**
 * What a request's {@code Accept-Encoding} takes (RFC 9110 12.5.3): a coding named with a weight above 0, or, when
 * it is not named, {@code *} with a weight above 0 ({@code gzip} also as its old name {@code x-gzip}). A field
 * without the coding, with {@code coding;q=0}, or no field at all: not taken.
 */
public final class AcceptEncoding {
    private AcceptEncoding() {}

    /**
     * Of {@code codings} (in the server's order of preference), the one the client weighs highest, the first on a tie;
     * null when it takes none of them.
     *
     * @param field the request's {@code Accept-Encoding} values joined by commas, or null
     */
    static Coding best(String field, Coding[] codings) {
        if (field == null) {
            return null;
        }
        int[] weights = weights(field, codings);
        Coding best = null;
        int bestWeight = 0;
        for (int i = 0; i < codings.length; i++) {
            if (weights[i] > bestWeight) {
                best = codings[i];
                bestWeight = weights[i];
            }
        }
        return best;
    }

    /**
     * Of {@code codings} (in the server's order of preference), those the client takes, the one it weighs highest
     * first, the server's order on a tie; empty when it takes none of them.
     */
    public static List<String> ranked(String field, List<String> codings) {
        if (field == null) {
            return List.of();
        }
        int[] given = weights(field, codings.stream().map(Coding::of).toArray(Coding[]::new));
        List<String> taken = new java.util.ArrayList<>(codings.size());
        List<Integer> weights = new java.util.ArrayList<>(codings.size());
        for (int i = 0; i < codings.size(); i++) {
            String c = codings.get(i);
            int w = given[i];
            if (w > 0) {
                int at = 0;
                while (at < weights.size() && weights.get(at) >= w) {
                    at++;
                }
                taken.add(at, c);
                weights.add(at, w);
            }
        }
        return taken;
    }

    /** The weight in thousandths {@code field} gives {@code coding}: its own, else {@code *}'s, else 0. */
    static int weight(String field, String coding) {
        return weights(field, new Coding[] {Coding.of(coding)})[0];
    }

    /**
     * The weights {@code field} gives each of {@code codings}, read in one pass over it (a request asks for several):
     * a coding's own weight, else {@code *}'s, else 0.
     */
    private static int[] weights(String field, Coding[] codings) {
        int[] own = new int[codings.length];
        java.util.Arrays.fill(own, -1);
        int any = -1;
        int n = field.length();
        for (int start = 0; start < n; ) {
            int end = field.indexOf(',', start);
            if (end < 0) {
                end = n;
            }
            int semi = field.indexOf(';', start);
            int tokenEnd = semi >= 0 && semi < end ? semi : end;
            int from = start;
            int to = tokenEnd;
            while (from < to && field.charAt(from) <= ' ') {
                from++;
            }
            while (to > from && field.charAt(to - 1) <= ' ') {
                to--;
            }
            int weight = tokenEnd < end ? qvalue(field.substring(tokenEnd + 1, end)) : 1000;
            if (weight >= 0) {
                int length = to - from;
                if (length == 1 && field.charAt(from) == '*') {
                    any = Math.max(any, weight);
                }
                for (int i = 0; i < codings.length; i++) {
                    String c = codings[i].token;
                    if (length == c.length() && field.regionMatches(true, from, c, 0, length)
                            || c.equals("gzip") && length == 6 && field.regionMatches(true, from, "x-gzip", 0, 6)) {
                        own[i] = Math.max(own[i], weight);
                    }
                }
            }
            start = end + 1;
        }
        for (int i = 0; i < own.length; i++) {
            own[i] = own[i] >= 0 ? own[i] : Math.max(any, 0);
        }
        return own;
    }

    /**
     * The weight in thousandths of {@code params} ({@code q=0.5} is 500; without {@code q}, 1000), or -1 when
     * {@code q} is no qvalue: such an element is left out, as if not sent.
     */
    private static int qvalue(String params) {
        for (String p : params.split(";")) {
            String t = p.trim();
            if (t.length() < 2 || (t.charAt(0) | 0x20) != 'q' || t.charAt(1) != '=') {
                continue;
            }
            String v = t.substring(2);
            if (v.equals("1") || v.matches("1\\.0{0,3}")) {
                return 1000;
            }
            if (!v.matches("0(\\.[0-9]{0,3})?")) {
                return -1;
            }
            String digits = v.length() > 2 ? v.substring(2) : "";
            return digits.isEmpty() ? 0 : Integer.parseInt((digits + "00").substring(0, 3));
        }
        return 1000;
    }
}
