package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading configs: a file given with {@code --config}, or the default embedded in the jar. */
public final class ConfigFiles {
    public static final String EMBEDDED = "embedded default config";
    private static final String EMBEDDED_RESOURCE = "/strait-default.yaml";

    private ConfigFiles() {}

    public static Snapshot load(Path file) throws IOException, InvalidConfigException {
        String text = utf8(Files.readAllBytes(file), file.toString());
        Config config = ConfigParser.parse(text, file.toString());
        return SnapshotBuilder.build(config, file.toString());
    }

    /** The text of a config file, which must be UTF-8; a byte that is not is reported at its line and column. */
    static String utf8(byte[] bytes, String source) throws InvalidConfigException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = decoder.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw new InvalidConfigException(source, List.of(new ConfigError("", String.format(
                    "not valid UTF-8 at line %d, column %d (byte 0x%02X): a config file must be UTF-8", line,
                    at - lineStart + 1, bytes[at] & 0xff))));
        }
        decoder.flush(out);
        return out.flip().toString();
    }

    public static Snapshot loadEmbedded() {
        try (InputStream in = ConfigFiles.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return SnapshotBuilder.build(ConfigParser.parse(text, EMBEDDED), EMBEDDED);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InvalidConfigException e) {
            throw new IllegalStateException("the embedded config is invalid: " + e.getMessage(), e);
        }
    }
}
