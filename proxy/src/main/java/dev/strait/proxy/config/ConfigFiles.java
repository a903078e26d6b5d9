package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reading configs: a file given with {@code --config}, or the default embedded in the jar. */
public final class ConfigFiles {
    public static final String EMBEDDED = "embedded default config";
    private static final String EMBEDDED_RESOURCE = "/strait-default.yaml";

    private ConfigFiles() {}

    public static Snapshot load(Path file) throws IOException, InvalidConfigException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Config config = ConfigParser.parse(text, file.toString());
        return SnapshotBuilder.build(config, file.toString());
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
