package dev.strait.proxy.compression;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The media types a rule compresses: exact ({@code text/html}) or a whole top-level type ({@code text/*}). */
final class MediaTypes {
    private final Set<String> exact = new HashSet<>();
    private final Set<String> topLevel = new HashSet<>();
    private final boolean any;

    /** @param types lower case, as the config's parser leaves them */
    MediaTypes(List<String> types) {
        boolean all = false;
        for (String t : types) {
            if (t.equals("*/*")) {
                all = true;
            } else if (t.endsWith("/*")) {
                topLevel.add(t.substring(0, t.length() - 1)); // "text/"
            } else {
                exact.add(t);
            }
        }
        this.any = all;
    }

    /** Whether {@code contentType} (a {@code Content-Type} value, parameters and all) is one of them. */
    boolean matches(CharSequence contentType) {
        if (contentType == null) {
            return false;
        }
        String v = contentType.toString();
        int semi = v.indexOf(';');
        String type = (semi >= 0 ? v.substring(0, semi) : v).trim().toLowerCase(Locale.ROOT);
        int slash = type.indexOf('/');
        if (slash <= 0 || slash == type.length() - 1) {
            return false;
        }
        return any || exact.contains(type) || topLevel.contains(type.substring(0, slash + 1));
    }
}
