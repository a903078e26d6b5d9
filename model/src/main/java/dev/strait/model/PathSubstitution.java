package dev.strait.model;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.MatchResult;

/**
 * The substitution of a {@code replaceRegexMatch} path rewrite, read once: text copied as written and
 * references to the pattern's groups. {@code $1} to {@code $9} take one digit, as nginx's {@code rewrite}
 * reads them ({@code $10} is group 1 and then {@code 0}); {@code ${12}} names any group and {@code $0} the
 * whole match; {@code $$} is a dollar sign. A group that took no part in the match gives nothing.
 *
 * <p>The text is a piece of a request path: no query or fragment ({@code ?}, {@code #}), no spaces,
 * control or non-ASCII characters, and every {@code %} starts a whole escape. A backslash is a plain
 * character (not an escape as in Java's replacement strings).
 */
public final class PathSubstitution {
    /** The text before each group reference, and after the last: one more than {@link #groups}. */
    private final String[] literals;
    private final int[] groups;
    private final int maxGroup;

    private PathSubstitution(String[] literals, int[] groups) {
        this.literals = literals;
        this.groups = groups;
        int max = 0;
        for (int g : groups) {
            max = Math.max(max, g);
        }
        this.maxGroup = max;
    }

    /**
     * @throws IllegalArgumentException saying what is wrong and where, for a config error
     */
    public static PathSubstitution parse(String s) {
        List<String> literals = new ArrayList<>();
        List<Integer> groups = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '$') {
                char d = i + 1 < s.length() ? s.charAt(i + 1) : 0;
                if (d == '$') {
                    lit.append('$');
                    i++;
                    continue;
                }
                int group;
                if (d >= '0' && d <= '9') {
                    group = d - '0';
                    i++;
                } else if (d == '{') {
                    int close = s.indexOf('}', i + 2);
                    String digits = close < 0 ? "" : s.substring(i + 2, close);
                    if (digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
                        throw new IllegalArgumentException("\"" + s + "\" has \"${\" without a group number and \"}\" at "
                                + "index " + i + " (write ${12}, or $$ for a dollar sign)");
                    }
                    group = Integer.parseInt(digits);
                    i = close;
                } else {
                    throw new IllegalArgumentException("\"" + s + "\" has \"$\" without a group number at index " + i
                            + " (write $1 to $9 or ${12} for a group, $$ for a dollar sign)");
                }
                literals.add(lit.toString());
                lit.setLength(0);
                groups.add(group);
            } else if (c == '%') {
                if (i + 2 >= s.length() || Character.digit(s.charAt(i + 1), 16) < 0
                        || Character.digit(s.charAt(i + 2), 16) < 0) {
                    throw new IllegalArgumentException("\"" + s + "\" has a \"%\" that starts no escape at index " + i
                            + " (write %25 for a percent sign)");
                }
                lit.append(s, i, i + 3);
                i += 2;
            } else if (c == '?' || c == '#') {
                throw new IllegalArgumentException("\"" + s + "\" holds a query or fragment: the request's query is kept");
            } else if (c <= 0x20 || c >= 0x7f) {
                throw new IllegalArgumentException("\"" + s + "\" holds a space, control or non-ASCII character at index "
                        + i + ": write it percent-encoded");
            } else {
                lit.append(c);
            }
        }
        literals.add(lit.toString());
        return new PathSubstitution(literals.toArray(new String[0]), groups.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The highest group referred to, 0 for none. */
    public int maxGroup() {
        return maxGroup;
    }

    /** Appends the substitution for the match {@code m} of {@code input} to {@code out}. */
    public void appendTo(StringBuilder out, MatchResult m, String input) {
        for (int i = 0; i < groups.length; i++) {
            out.append(literals[i]);
            int start = m.start(groups[i]);
            if (start >= 0) {
                out.append(input, start, m.end(groups[i]));
            }
        }
        out.append(literals[groups.length]);
    }
}
