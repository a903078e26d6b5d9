package dev.strait.operator.translate;

import dev.strait.model.ConfigParser;
import dev.strait.operator.crd.RouteSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * ingress-nginx's {@code configuration-snippet} where all it does is edit header fields with fixed values, which is
 * what most such snippets do (ADR 0084): {@code more_set_headers "Name: value"}, {@code more_clear_headers Name},
 * {@code add_header Name value [always]} on the answer; {@code proxy_set_header Name value},
 * {@code more_set_input_headers "Name: value"}, {@code more_clear_input_headers Name} on the request going upstream.
 * The forms that say what the proxy does anyway ({@code proxy_set_header Host $host},
 * {@code X-Forwarded-For $proxy_add_x_forwarded_for}, ...) are taken as they are: nothing to change. nginx's
 * {@code gzip} and {@code brotli} lines turn the Ingress's compression on or off, or change it ({@link Compression}).
 *
 * <p>Anything else (another directive, a variable, a block, an option of headers-more) and the whole snippet is
 * not applied, with a warning naming what was not understood: applying part of it could leave out a line that
 * narrows who is served.
 */
final class ConfigurationSnippet {
    private static final Pattern NAME = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    /** {@code proxy_set_header} lines that ask for what the proxy sends anyway (docs/config.md, What goes upstream). */
    private static final Map<String, List<String>> ALREADY_SO = Map.of(
            "host", List.of("$host", "$http_host"),
            "x-forwarded-for", List.of("$proxy_add_x_forwarded_for"),
            "x-forwarded-proto", List.of("$scheme"),
            "x-forwarded-host", List.of("$host", "$http_host"),
            "x-real-ip", List.of("$remote_addr"),
            "upgrade", List.of("$http_upgrade"),
            "connection", List.of("$connection_upgrade", "upgrade"));

    /** The edits, on the request going upstream and on the answer, and the snippet's compression; any may be null. */
    record Edits(RouteSpec.HeaderEdits request, RouteSpec.HeaderEdits response, Compression compression) {
        Edits(RouteSpec.HeaderEdits request, RouteSpec.HeaderEdits response) {
            this(request, response, null);
        }
    }

    /**
     * nginx's {@code gzip} and {@code brotli} directives in the snippet (ingress-nginx users turn compression on or off
     * per Ingress so): each switch on, off, or null when not written; and the settings Strait has once for every coding
     * (types, minimum length, level), read from both modules' lines ({@link CompressionEdit#compression}), each null
     * when not written.
     */
    record Compression(Boolean gzip, Boolean brotli, List<String> types, Long minLength, Integer level) {
        /**
         * A rule's compression: the controller's ({@code --ingress-compression}, or null) with the snippet's changes.
         * nginx's gzip switch turns the controller's codings but br on or off (zstd goes with gzip, as in Strait's
         * default), its brotli switch br: first when on, since ngx_brotli's filter runs before gzip's and so wins
         * with a client that takes both. No coding left is no compression; settings without a switch on change only
         * a controller's that is on, as in nginx, where they do nothing while off.
         */
        RouteSpec.Compression applied(RouteSpec.Compression controller) {
            List<RouteSpec.Coding> from = controller != null && controller.codings != null ? controller.codings
                    : RouteSpec.Coding.of(dev.strait.model.Route.Compression.DEFAULT_CODINGS);
            boolean others = gzip != null ? gzip : controller != null;
            List<RouteSpec.Coding> codings = new ArrayList<>();
            for (RouteSpec.Coding coding : from) {
                if (coding == RouteSpec.Coding.BR ? brotli == null && controller != null : others) {
                    codings.add(coding);
                }
            }
            if (Boolean.TRUE.equals(brotli)) {
                codings.add(0, RouteSpec.Coding.BR);
            }
            if (codings.isEmpty()) {
                return null;
            }
            RouteSpec.Compression c = new RouteSpec.Compression();
            if (controller != null) {
                c.types = controller.types;
                c.minBytes = controller.minBytes;
                c.level = controller.level;
            }
            if (types != null) {
                c.types = types;
            }
            if (minLength != null) {
                c.minBytes = minLength;
            }
            if (level != null) {
                c.level = level;
            }
            c.codings = List.copyOf(codings);
            return c;
        }
    }

    private ConfigurationSnippet() {}

    /**
     * The snippet's header edits, or null (with a warning naming {@code field} and what was not understood) when it
     * holds anything else, or nothing.
     */
    static Edits read(String snippet, String field, List<String> warn) {
        List<List<String>> statements;
        try {
            statements = statements(snippet);
        } catch (IllegalArgumentException e) {
            warn.add(field + ": " + e.getMessage() + "; the snippet is not applied");
            return null;
        }
        Edit request = new Edit();
        Edit response = new Edit();
        CompressionEdit compressing = new CompressionEdit();
        for (List<String> s : statements) {
            String why = CompressionEdit.reads(s.get(0)) ? compressing.apply(s.get(0), s.subList(1, s.size()))
                    : apply(s, request, response);
            if (why != null) {
                warn.add(field + ": \"" + String.join(" ", s) + "\" " + why + "; the snippet is not applied (Strait"
                        + " reads only header directives with fixed values: more_set_headers, more_clear_headers,"
                        + " add_header, proxy_set_header, more_set_input_headers, more_clear_input_headers; and gzip"
                        + " and brotli with their _types, _comp_level and _min_length, gzip_vary on, gzip_proxied any)");
                return null;
            }
        }
        List<String> notes = new ArrayList<>();
        Compression compression = compressing.compression(field, notes);
        if (request.empty() && response.empty() && compression == null) {
            return null;
        }
        warn.addAll(notes);
        return new Edits(request.empty() ? null : request.spec(), response.empty() ? null : response.spec(), compression);
    }

    /** A media type or a whole top-level type, as the config's parser takes them for a rule's compression. */
    private static final Pattern MEDIA_RANGE = Pattern.compile(
            "[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/(\\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})");
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,12})([kKmM]?)");

    private static final String NOT_READ = "is nginx configuration Strait does not read";

    /**
     * The snippet's gzip and brotli directives (ngx_http_gzip_module's, ngx_brotli's), read in order (a later line wins,
     * as in nginx).
     */
    private static final class CompressionEdit {
        /** One module's lines: its switch and settings, each null when not written, and the lines as written. */
        private static final class Module {
            final String name;
            Boolean on;
            List<String> types;
            Long minLength;
            Integer level;
            final Map<String, String> lines = new LinkedHashMap<>();

            Module(String name) {
                this.name = name;
            }
        }

        final Module gzip = new Module("gzip");
        final Module brotli = new Module("brotli");
        /** Lines applied otherwise than nginx would, said once the snippet applies. */
        final List<String> notes = new ArrayList<>();

        static boolean reads(String directive) {
            return directive.startsWith("gzip") || directive.startsWith("brotli");
        }

        /** Null when understood, else why not. */
        String apply(String directive, List<String> args) {
            Module m = directive.startsWith(brotli.name) ? brotli : gzip;
            String line = directive + (args.isEmpty() ? "" : " " + String.join(" ", args));
            String setting = directive.substring(m.name.length());
            m.lines.put(setting, line);
            switch (setting) {
                case "" -> {
                    if (args.size() != 1 || !args.get(0).equals("on") && !args.get(0).equals("off")) {
                        return "is not \"" + m.name + " on\" or \"" + m.name + " off\"";
                    }
                    m.on = args.get(0).equals("on");
                    return null;
                }
                case "_types" -> {
                    if (args.isEmpty()) {
                        return "names no type";
                    }
                    List<String> out = new ArrayList<>();
                    out.add("text/html"); // both modules always compress text/html when on
                    for (String a : args) {
                        String t = a.toLowerCase(Locale.ROOT);
                        if (t.equals("*")) {
                            t = "*/*";
                        } else if (!MEDIA_RANGE.matcher(t).matches()) {
                            return "names \"" + a + "\", which is not a media type";
                        }
                        if (!out.contains(t)) {
                            out.add(t);
                        }
                    }
                    m.types = List.copyOf(out);
                    return null;
                }
                case "_comp_level" -> {
                    if (m == gzip) {
                        if (args.size() != 1 || !args.get(0).matches("[1-9]")) {
                            return "is not a level from 1 to 9";
                        }
                        m.level = Integer.parseInt(args.get(0));
                        return null;
                    }
                    if (args.size() != 1 || !args.get(0).matches("[0-9]|1[01]")) {
                        return "is not a level from 0 to 11";
                    }
                    // Strait's levels are 1 to 9 of every coding's scale, brotli's quality 1 to 9 among its 0 to 11.
                    int quality = Integer.parseInt(args.get(0));
                    m.level = Math.max(1, Math.min(9, quality));
                    if (m.level != quality) {
                        notes.add("\"" + line + "\" is applied as level " + m.level + ": Strait's levels go from 1 to 9");
                    }
                    return null;
                }
                case "_min_length" -> {
                    java.util.regex.Matcher sized = args.size() == 1 ? SIZE.matcher(args.get(0)) : null;
                    if (sized == null || !sized.matches()) {
                        return "is not a size (1000, 1k, 1m)";
                    }
                    long n = Long.parseLong(sized.group(1));
                    m.minLength = switch (sized.group(2).toLowerCase(Locale.ROOT)) {
                        case "k" -> n * 1024;
                        case "m" -> n * 1024 * 1024;
                        default -> n;
                    };
                    return null;
                }
                case "_static" -> {
                    // Off is what an Ingress gets anyway: its answers come from upstreams, compressed as they go.
                    return args.size() == 1 && args.get(0).equals("off") ? null
                            : "does not apply: precompressed twins beside files (app.js.br) are a Route's files rule's"
                                    + " (precompressed), and an Ingress's backends are upstreams";
                }
                case "_vary", "_proxied", "_http_version" -> {
                    if (m == brotli) {
                        return NOT_READ;
                    }
                    // What Strait does anyway: Vary always, proxied requests alike, HTTP/1.1 and up.
                    String same = setting.equals("_vary") ? "on" : setting.equals("_proxied") ? "any" : "1.1";
                    return args.size() == 1 && args.get(0).equals(same) ? null
                            : "asks for what Strait does not do (it compresses as \"" + directive + " " + same + "\")";
                }
                default -> {
                    return NOT_READ;
                }
            }
        }

        /**
         * What the lines say, or null for none. Strait has one set of settings for every coding where nginx has one per
         * module: types are both lists' (a type nginx compresses in either coding stays compressed), the minimum length
         * and level gzip's where both are written; a difference is noted, naming both lines.
         */
        Compression compression(String field, List<String> out) {
            List<String> types = gzip.types != null ? gzip.types : brotli.types;
            if (gzip.types != null && brotli.types != null && !Set.copyOf(gzip.types).equals(Set.copyOf(brotli.types))) {
                Set<String> union = new java.util.LinkedHashSet<>(gzip.types);
                union.addAll(brotli.types);
                types = List.copyOf(union);
                notes.add(differ("_types") + " differ; Strait has one list of types for every coding, and compresses"
                        + " those of both");
            }
            Long minLength = agreed("_min_length", gzip.minLength, brotli.minLength);
            Integer level = agreed("_comp_level", gzip.level, brotli.level);
            notes.forEach(n -> out.add(field + ": " + n));
            if (gzip.on == null && brotli.on == null && types == null && minLength == null && level == null) {
                return null; // only lines that ask for what Strait does anyway
            }
            return new Compression(gzip.on, brotli.on, types, minLength, level);
        }

        /** gzip's setting where both modules have one (a difference noted: Strait has one for every coding), else either. */
        private <T> T agreed(String setting, T ofGzip, T ofBrotli) {
            if (ofGzip != null && ofBrotli != null && !ofGzip.equals(ofBrotli)) {
                notes.add(differ(setting) + " differ; Strait has one for every coding, and gzip's applies");
            }
            return ofGzip != null ? ofGzip : ofBrotli;
        }

        private String differ(String setting) {
            return "\"" + gzip.lines.get(setting) + "\" and \"" + brotli.lines.get(setting) + "\"";
        }
    }

    /** Applies one statement; null when understood, else why not. */
    private static String apply(List<String> s, Edit request, Edit response) {
        String directive = s.get(0);
        List<String> args = s.subList(1, s.size());
        switch (directive) {
            case "more_set_headers", "more_set_input_headers" -> {
                Edit to = directive.equals("more_set_headers") ? response : request;
                if (args.isEmpty()) {
                    return "names no header";
                }
                for (String a : args) {
                    if (a.startsWith("-")) {
                        return "has an option (" + a + ") Strait does not read";
                    }
                    int colon = a.indexOf(':');
                    if (colon <= 0) {
                        return "is not \"Name: value\"";
                    }
                    String why = to.set(a.substring(0, colon).trim(), a.substring(colon + 1).trim(), to == request);
                    if (why != null) {
                        return why;
                    }
                }
                return null;
            }
            case "more_clear_headers", "more_clear_input_headers" -> {
                Edit from = directive.equals("more_clear_headers") ? response : request;
                if (args.isEmpty()) {
                    return "names no header";
                }
                for (String a : args) {
                    if (a.startsWith("-")) {
                        return "has an option (" + a + ") Strait does not read";
                    }
                    String why = from.remove(a, from == request);
                    if (why != null) {
                        return why;
                    }
                }
                return null;
            }
            case "add_header" -> {
                if (args.size() < 2 || args.size() > 3 || args.size() == 3 && !args.get(2).equals("always")) {
                    return "is not \"add_header Name value [always]\"";
                }
                return args.get(1).isEmpty() ? null : response.add(args.get(0), args.get(1));
            }
            case "proxy_set_header" -> {
                if (args.size() != 2) {
                    return "is not \"proxy_set_header Name value\"";
                }
                List<String> same = ALREADY_SO.get(args.get(0).toLowerCase(Locale.ROOT));
                if (same != null && same.contains(args.get(1))) {
                    return null; // what the proxy sends anyway
                }
                return args.get(1).isEmpty() ? request.remove(args.get(0), true)
                        : request.set(args.get(0), args.get(1), true);
            }
            default -> {
                return "is nginx configuration Strait does not read";
            }
        }
    }

    /** The edits of one side, as the Route's {@code requestHeaders} or {@code responseHeaders} take them. */
    private static final class Edit {
        final Map<String, String> set = new LinkedHashMap<>();
        final Map<String, String> add = new LinkedHashMap<>();
        final List<String> remove = new ArrayList<>();

        boolean empty() {
            return set.isEmpty() && add.isEmpty() && remove.isEmpty();
        }

        String set(String name, String value, boolean request) {
            String why = checked(name, value, request);
            if (why != null) {
                return why;
            }
            if (value.isEmpty()) {
                return remove(name, request); // headers-more: "Name:" clears it
            }
            String n = name.toLowerCase(Locale.ROOT);
            forget(n); // a later line wins, as nginx runs them in order
            set.put(n, value);
            return null;
        }

        String add(String name, String value) {
            String why = checked(name, value, false);
            if (why == null) {
                String n = name.toLowerCase(Locale.ROOT);
                remove.remove(n);
                set.remove(n);
                add.put(n, value);
            }
            return why;
        }

        String remove(String name, boolean request) {
            String why = checked(name, "", request);
            if (why == null) {
                String n = name.toLowerCase(Locale.ROOT);
                forget(n);
                remove.add(n);
            }
            return why;
        }

        private void forget(String name) {
            set.remove(name);
            add.remove(name);
            remove.remove(name);
        }

        private static String checked(String name, String value, boolean request) {
            if (!NAME.matcher(name).matches() || name.contains("*")) {
                return "names \"" + name + "\", which is not a header name";
            }
            if ((request ? ConfigParser.RESERVED_REQUEST_HEADERS : ConfigParser.RESERVED_RESPONSE_HEADERS)
                    .contains(name.toLowerCase(Locale.ROOT))) {
                return "changes " + name + ", which is the proxy's to set";
            }
            if (value.contains("$")) {
                return "holds an nginx variable";
            }
            if (value.length() > 8192 || value.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
                return "has a value with control characters, or longer than 8192";
            }
            return null;
        }

        RouteSpec.HeaderEdits spec() {
            RouteSpec.HeaderEdits e = new RouteSpec.HeaderEdits();
            e.set = set.isEmpty() ? null : Map.copyOf(set);
            e.add = add.isEmpty() ? null : Map.copyOf(add);
            e.remove = remove.isEmpty() ? null : List.copyOf(remove);
            return e;
        }
    }

    /**
     * nginx's statements: words and quoted strings ({@code "..."} or {@code '...'}, backslash escapes), ended by
     * {@code ;}, with {@code #} comments to the end of the line. A block ({@code { }}) is refused.
     */
    static List<List<String>> statements(String text) {
        List<List<String>> out = new ArrayList<>();
        List<String> current = new ArrayList<>();
        StringBuilder word = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '#' && word == null) {
                while (i < text.length() && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '"' || c == '\'') {
                StringBuilder q = new StringBuilder();
                int j = i + 1;
                for (; j < text.length() && text.charAt(j) != c; j++) {
                    char d = text.charAt(j);
                    if (d == '\\' && j + 1 < text.length()) {
                        d = text.charAt(++j);
                    }
                    q.append(d);
                }
                if (j >= text.length()) {
                    throw new IllegalArgumentException("a quote is not closed");
                }
                (word == null ? (word = new StringBuilder()) : word).append(q);
                i = j;
            } else if (c == '{' || c == '}') {
                throw new IllegalArgumentException("holds a block ({ }), which is nginx configuration Strait does not"
                        + " read");
            } else if (c == ';' || Character.isWhitespace(c)) {
                if (word != null) {
                    current.add(word.toString());
                    word = null;
                }
                if (c == ';') {
                    if (current.isEmpty()) {
                        throw new IllegalArgumentException("has an empty statement");
                    }
                    out.add(current);
                    current = new ArrayList<>();
                }
            } else {
                (word == null ? (word = new StringBuilder()) : word).append(c);
            }
        }
        if (word != null || !current.isEmpty()) {
            throw new IllegalArgumentException("does not end its last statement with ;");
        }
        return out;
    }
}
