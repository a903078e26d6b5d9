package dev.strait.operator.translate;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a spec (already in the config file's shape) into model values with the proxy's own parser,
 * so that the operator refuses exactly what a proxy would refuse, with the same messages. Field paths
 * are moved from the config's ({@code routes[0].rules[1]}) to the resource's ({@code spec.rules[1]}).
 */
final class ModelCheck {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ModelCheck() {}

    /** A model value, or the errors that kept it from being made. */
    record Checked<T>(T value, List<String> errors) {
        boolean ok() {
            return errors.isEmpty();
        }
    }

    /**
     * @param upstreams the model names its backends use and their protocols; each must be declared for the
     *                  parser, which checks a rule's {@code fastcgi} settings against the protocol
     */
    static Checked<Route> route(ObjectNode route, Map<String, Upstream.Protocol> upstreams) {
        ObjectNode config = frame();
        ArrayNode ups = config.putArray("upstreams");
        upstreams.forEach((name, protocol) -> {
            ObjectNode u = ups.addObject().put("name", name);
            u.putArray("endpoints");
            if (protocol != Upstream.Protocol.HTTP1) {
                u.put("protocol", protocol.name().toLowerCase(Locale.ROOT));
            }
        });
        config.putArray("routes").add(route);
        try {
            Config c = ConfigParser.parse(config, "route");
            return new Checked<>(c.routes().get(0), List.of());
        } catch (InvalidConfigException e) {
            return new Checked<>(null, paths(e.errors(), "routes[0]"));
        }
    }

    static Checked<Upstream> upstream(ObjectNode upstream) {
        ObjectNode config = frame();
        config.putArray("upstreams").add(upstream);
        try {
            Config c = ConfigParser.parse(config, "upstream");
            return new Checked<>(c.upstreams().get(0), List.of());
        } catch (InvalidConfigException e) {
            return new Checked<>(null, paths(e.errors(), "upstreams[0]"));
        }
    }

    private static ObjectNode frame() {
        ObjectNode config = NODES.objectNode();
        // The proxies' listener names, so that a Route's listeners are checked against them (plain here: the
        // TLS listener's certificates are the snapshot's business, see Translation).
        ArrayNode listeners = config.putArray("listeners");
        for (String name : ProxyDefaults.LISTENERS) {
            listeners.addObject().put("name", name).put("address", "127.0.0.1:0");
        }
        return config;
    }

    private static List<String> paths(List<ConfigError> errors, String prefix) {
        List<String> out = new ArrayList<>(errors.size());
        for (ConfigError e : errors) {
            String p = e.path();
            if (p.equals(prefix + ".name")) {
                p = "metadata.name";
            } else if (p.startsWith(prefix)) {
                p = "spec" + p.substring(prefix.length());
            }
            out.add(p + ": " + e.message());
        }
        return out;
    }
}
