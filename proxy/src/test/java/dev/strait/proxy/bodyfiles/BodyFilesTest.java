package dev.strait.proxy.bodyfiles;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Body files on a real directory: unlinked at once, read back as written, and never more than the budget. */
class BodyFilesTest {
    @TempDir
    Path dir;

    private BodyFiles files(long max) {
        return new BodyFiles(new Config.RequestBodyFiles(dir.toString(), max));
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String readAll(BodyFile f) throws IOException {
        StringBuilder sb = new StringBuilder();
        ByteBuf part;
        while ((part = f.read(ByteBufAllocator.DEFAULT)) != null) {
            assertThat(part.readableBytes()).isLessThanOrEqualTo(BodyFile.CHUNK);
            sb.append(part.toString(StandardCharsets.US_ASCII));
            part.release();
        }
        return sb.toString();
    }

    @Test
    void aBodyComesBackAsItWentInAndLeavesNoFileBehind() throws Exception {
        BodyFiles files = files(1 << 20);
        BodyFile f = files.open();
        try (Stream<Path> in = Files.list(dir)) {
            assertThat(in).as("unlinked as soon as made").isEmpty();
        }
        String big = "0123456789abcdef".repeat(10_000); // 160,000 bytes: three reads back
        ByteBuf one = text("head:");
        assertThat(f.append(one)).isTrue();
        assertThat(one.refCnt()).as("released once written").isZero();
        assertThat(f.append(text(big).slice(0, 160_000))).isTrue();
        assertThat(f.length()).isEqualTo(160_005);
        assertThat(files.held()).isEqualTo(160_005);
        assertThat(readAll(f)).isEqualTo("head:" + big);
        f.close();
        f.close(); // again: nothing
        assertThat(files.held()).isZero();
        assertThat(files.refusals()).isZero();
    }

    @Test
    void theBudgetIsSharedAndWhatDoesNotFitIsRefusedAndKept() {
        BodyFiles files = files(10);
        BodyFile a = files.open();
        BodyFile b = files.open();
        assertThat(a.append(text("123456"))).isTrue();
        ByteBuf tooMuch = text("12345");
        assertThat(b.append(tooMuch)).as("6 + 5 > 10").isFalse();
        assertThat(tooMuch.refCnt()).as("the caller keeps what was refused").isEqualTo(1);
        tooMuch.release();
        assertThat(b.append(text("1234"))).isTrue();
        assertThat(files.held()).isEqualTo(10);
        assertThat(files.refusals()).isEqualTo(1);
        a.close();
        assertThat(files.held()).isEqualTo(4);
        assertThat(b.append(text("123456"))).as("room again once a file closed").isTrue();
        b.close();
        assertThat(files.held()).isZero();
    }

    @Test
    void noFilesWhenOffOrWhereTheDirectoryRefuses() {
        assertThat(files(0).open()).isNull();
        assertThat(files(0).enabled()).isFalse();
        BodyFiles missing = new BodyFiles(new Config.RequestBodyFiles(dir.resolve("gone").toString(), 1 << 20));
        assertThat(missing.enabled()).isTrue();
        assertThat(missing.open()).isNull();
        assertThat(missing.refusals()).isEqualTo(1);
    }

    @Test
    void aReloadChangesTheBudgetOfFilesAlreadyOpen() {
        BodyFiles files = files(100);
        BodyFile f = files.open();
        assertThat(f.append(text("x".repeat(60)))).isTrue();
        files.configure(new Config.RequestBodyFiles(dir.toString(), 50));
        ByteBuf y = text("y");
        assertThat(f.append(y)).as("60 held already, over the new 50").isFalse();
        y.release();
        f.close();
        assertThat(files.held()).isZero();
    }
}
