package dev.strait.proxy.headers;

import dev.strait.model.Route;
import dev.strait.proxy.http.HeadLines;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A rule's {@code requestHeaders} or {@code responseHeaders}, ready to apply: remove, then set, then add. */
final class HeaderEditor {
    private final String[] remove;
    private final String[] setNames;
    private final String[] setValues;
    private final String[] addNames;
    private final String[] addValues;
    /** The names whose lines a pre-encoded head loses: those removed and those set. */
    private final String[] replaced;
    /** The set and added fields as head lines, each ending in CRLF. */
    final byte[] lines;

    HeaderEditor(Route.HeaderEdits edits) {
        remove = edits.remove().toArray(String[]::new);
        Map<String, String> set = new TreeMap<>(edits.set());
        Map<String, String> add = new TreeMap<>(edits.add());
        setNames = set.keySet().toArray(String[]::new);
        setValues = set.values().toArray(String[]::new);
        addNames = add.keySet().toArray(String[]::new);
        addValues = add.values().toArray(String[]::new);
        List<String> gone = new ArrayList<>(edits.remove());
        gone.addAll(set.keySet());
        replaced = gone.toArray(String[]::new);
        StringBuilder b = new StringBuilder();
        set.forEach((n, v) -> b.append(n).append(": ").append(v).append("\r\n"));
        add.forEach((n, v) -> b.append(n).append(": ").append(v).append("\r\n"));
        lines = b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    static HeaderEditor of(Route.HeaderEdits edits) {
        return edits == null ? null : new HeaderEditor(edits);
    }

    void apply(HttpHeaders h) {
        for (String n : remove) {
            h.remove(n);
        }
        for (int i = 0; i < setNames.length; i++) {
            h.set(setNames[i], setValues[i]);
        }
        for (int i = 0; i < addNames.length; i++) {
            h.add(addNames[i], addValues[i]);
        }
    }

    /** A pre-encoded head without the lines of removed and set fields; {@link #lines} then follow it. */
    byte[] strip(byte[] head) {
        return replaced.length == 0 ? head : HeadLines.without(head, replaced);
    }
}
