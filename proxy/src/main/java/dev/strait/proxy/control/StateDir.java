package dev.strait.proxy.control;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.ConfigWriter;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --state-dir}: the last snapshot this proxy accepted, in the config file's own shape
 * ({@code snapshot.json}), written to a temporary file, synced and renamed, so a crash leaves the old
 * or the new file, never half of one. It is read back through the same parser and builder as any
 * config, so a state file that no longer builds (a files root gone) is refused like one.
 */
public final class StateDir {
    private static final Logger log = LoggerFactory.getLogger(StateDir.class);
    static final String FILE = "snapshot.json";

    private final Path dir;

    public StateDir(Path dir) {
        this.dir = dir;
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /** The kept snapshot, or null when there is none or it cannot be served any more. */
    public Snapshot load() {
        Path f = file();
        if (!Files.isRegularFile(f)) {
            return null;
        }
        try {
            Config c = ConfigParser.parse(Files.readString(f, StandardCharsets.UTF_8), f.toString());
            return SnapshotBuilder.build(c, f.toString());
        } catch (IOException | InvalidConfigException e) {
            log.warn("ignoring the kept snapshot {}: {}", f, e.getMessage());
            return null;
        }
    }

    public void save(Config config) throws IOException {
        Files.createDirectories(dir);
        Path tmp = dir.resolve(FILE + ".tmp");
        byte[] bytes = ConfigWriter.toJson(config, true).getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(true);
        }
        try {
            Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
