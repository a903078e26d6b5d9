package dev.strait.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command-line flags as every Strait program takes them (see CONTRACT): {@code --name value} or
 * {@code --name=value}, each also settable as the environment variable {@code STRAIT_NAME}
 * (upper case, '-' as '_'); a flag wins over its variable. {@code --help} and {@code -h} map to "help".
 */
public final class Flags {
    private Flags() {}

    /** The flags given, or {@code null} after printing what is wrong and {@code usage} to stderr. */
    public static Map<String, String> parse(String[] args, List<String> names, String usage) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (String name : names) {
            String env = System.getenv("STRAIT_" + name.toUpperCase(Locale.ROOT).replace('-', '_'));
            if (env != null && !env.isBlank()) {
                opts.put(name, env);
            }
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                opts.put("help", "");
                continue;
            }
            String name;
            String value;
            if (a.startsWith("--") && a.contains("=")) {
                name = a.substring(2, a.indexOf('='));
                value = a.substring(a.indexOf('=') + 1);
            } else if (a.startsWith("--") && i + 1 < args.length) {
                name = a.substring(2);
                value = args[++i];
            } else {
                System.err.println("unexpected argument: " + a + "\n" + usage);
                return null;
            }
            if (!names.contains(name)) {
                System.err.println("unknown option --" + name + "\n" + usage);
                return null;
            }
            opts.put(name, value);
        }
        return opts;
    }
}
