package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.StringReader;
import java.math.BigInteger;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * YAML (and so JSON) text to a Jackson tree, through SnakeYAML's composer and Jackson's node factory.
 * Jackson's own YAML mapper costs about a second of start-up on these machines, most of a sidecar's
 * budget; this path costs a fraction of it (docs/adr/0004). Duplicate keys are refused with their line.
 */
final class YamlTree {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private YamlTree() {}

    /** A config's syntax problem, with the line and column it is at. */
    static final class SyntaxError extends Exception {
        SyntaxError(String message) {
            super(message);
        }
    }

    /** Lazily made: only JSON input (control-channel snapshots) pays for an ObjectMapper. */
    private static final class JsonReader {
        static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    }

    /** The tree, or {@code null} for an empty document. */
    static JsonNode read(String text) throws SyntaxError {
        if (looksLikeJson(text)) {
            // JSON is YAML, but Jackson's JSON parser reads a 10k-route snapshot many times faster.
            try {
                JsonNode n = JsonReader.MAPPER.readTree(text);
                return n == null || n.isMissingNode() ? null : n;
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                var loc = e.getLocation();
                throw new SyntaxError("not valid JSON" + (loc == null ? "" : " at line " + loc.getLineNr()
                        + ", column " + loc.getColumnNr()) + ": " + e.getOriginalMessage());
            }
        }
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(50); // a "billion laughs" document stops here
        // SnakeYAML's default (3 M code points) is below a 10k-route table; 64 M still bounds a bad input.
        options.setCodePointLimit(64 * 1024 * 1024);
        Node root;
        try {
            root = new Yaml(options).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            throw new SyntaxError("not valid YAML" + at(m) + ": " + e.getProblem());
        } catch (YAMLException e) {
            throw new SyntaxError("not valid YAML: " + e.getMessage());
        }
        return root == null ? null : convert(root, new Budget(text.length()));
    }

    /**
     * What the tree may hold in scalar text. SnakeYAML caps aliases to collections (the classic "billion
     * laughs"), not aliases to scalars: 400 aliases of one 200,000-character anchor are a 237 KB file and
     * 80 MB of text once expanded. An alias may repeat its text (a PEM block shared by routes), within
     * four times the document's size plus 1 MiB.
     */
    private static final class Budget {
        final long limit;
        long left;

        Budget(int documentLength) {
            limit = 4L * documentLength + (1 << 20);
            left = limit;
        }

        void take(ScalarNode s) throws SyntaxError {
            left -= s.getValue().length();
            if (left < 0) {
                throw new SyntaxError("not valid YAML" + at(s.getStartMark()) + ": aliases expand the document to over "
                        + limit + " characters of text");
            }
        }
    }

    private static boolean looksLikeJson(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isWhitespace(c)) {
                return c == '{';
            }
        }
        return false;
    }

    private static String at(Mark m) {
        return m == null ? "" : " at line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1);
    }

    private static JsonNode convert(Node node, Budget budget) throws SyntaxError {
        if (node instanceof MappingNode map) {
            ObjectNode o = NODES.objectNode();
            for (NodeTuple t : map.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode key)) {
                    throw new SyntaxError("not valid YAML" + at(t.getKeyNode().getStartMark()) + ": keys must be plain names");
                }
                if (o.has(key.getValue())) {
                    throw new SyntaxError("not valid YAML" + at(key.getStartMark()) + ": duplicate key \""
                            + key.getValue() + "\"");
                }
                o.set(key.getValue(), convert(t.getValueNode(), budget));
            }
            return o;
        }
        if (node instanceof SequenceNode seq) {
            ArrayNode a = NODES.arrayNode(seq.getValue().size());
            for (Node item : seq.getValue()) {
                a.add(convert(item, budget));
            }
            return a;
        }
        ScalarNode s = (ScalarNode) node;
        budget.take(s);
        String v = s.getValue();
        Tag tag = s.getTag();
        if (Tag.NULL.equals(tag)) {
            return NODES.nullNode();
        }
        // YAML 1.2's core schema, not SnakeYAML's 1.1 one: a plain yes, on or 1_000 stays the text it is,
        // so a string field (a body, a header value) gets what was written, not "true" or "1000" (the
        // "Norway problem"). Boolean fields still take yes/no/on/off (ConfigParser), and number fields
        // refuse what is not a plain number, naming the field.
        if (Tag.BOOL.equals(tag)) {
            String l = v.toLowerCase(java.util.Locale.ROOT);
            return l.equals("true") || l.equals("false") ? NODES.booleanNode(l.equals("true")) : NODES.textNode(v);
        }
        if (Tag.INT.equals(tag)) {
            BigInteger n = integer(v);
            if (n != null && (n.toString().equals(v) || ("+" + n).equals(v))) {
                return n.bitLength() < 64 ? NODES.numberNode(n.longValue()) : NODES.numberNode(n);
            }
            return NODES.textNode(v);
        }
        if (Tag.FLOAT.equals(tag) && v.indexOf('_') < 0) {
            try {
                return NODES.numberNode(Double.parseDouble(v));
            } catch (NumberFormatException e) {
                return NODES.textNode(v);
            }
        }
        return NODES.textNode(v);
    }

    private static BigInteger integer(String v) {
        String s = v.replace("_", "");
        boolean negative = s.startsWith("-");
        if (negative || s.startsWith("+")) {
            s = s.substring(1);
        }
        try {
            BigInteger n;
            if (s.startsWith("0x")) {
                n = new BigInteger(s.substring(2), 16);
            } else if (s.startsWith("0o")) {
                n = new BigInteger(s.substring(2), 8);
            } else if (s.startsWith("0b")) {
                n = new BigInteger(s.substring(2), 2);
            } else {
                n = new BigInteger(s);
            }
            return negative ? n.negate() : n;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
