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

/**
 * Body files on a real directory: unlinked at once, read back as written, small ones kept for the next body, and
 * never more on disk than the budget.
 */
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
        assertThat(f.append(text(big))).isTrue();
        assertThat(f.length()).isEqualTo(160_005);
        assertThat(files.held()).isEqualTo(160_005);
        assertThat(readAll(f)).isEqualTo("head:" + big);
        f.close();
        f.close(); // again: nothing
        assertThat(files.refusals()).isZero();
    }

    @Test
    void aSmallFileIsKeptForTheNextBodyAndOverwritten() throws Exception {
        BodyFiles files = files(1 << 20);
        BodyFile f = files.open();
        assertThat(f.append(text("x".repeat(1000)))).isTrue();
        f.close();
        assertThat(files.held()).as("kept, and still counted").isEqualTo(1000);
        BodyFile again = files.open();
        assertThat(again).isSameAs(f);
        assertThat(again.length()).isZero();
        assertThat(again.append(text("short"))).isTrue();
        assertThat(readAll(again)).isEqualTo("short");
        assertThat(files.held()).as("no more disk for a shorter body").isEqualTo(1000);
        assertThat(again.append(text("y".repeat(2000)))).isTrue();
        assertThat(files.held()).as("only what grows past the file is taken").isEqualTo(2005);
        again.close();
    }

    @Test
    void aLargeFileIsClosedAndALoopKeepsAtMost64MiB() {
        BodyFiles files = files(128 << 20);
        BodyFile large = files.open();
        assertThat(large.append(Unpooled.wrappedBuffer(new byte[(1 << 20) + 1]))).isTrue();
        large.close();
        assertThat(files.held()).as("over 1 MiB: closed, its space given back").isZero();
        BodyFile[] open = new BodyFile[66];
        for (int i = 0; i < open.length; i++) {
            open[i] = files.open(); // 66 uploads at once: 66 files
            assertThat(open[i].append(Unpooled.wrappedBuffer(new byte[1 << 20]))).isTrue();
        }
        for (BodyFile f : open) {
            f.close();
        }
        assertThat(files.held()).as("64 of 1 MiB kept, two closed").isEqualTo(64L << 20);
    }

    @Test
    void aFileKeptLongUnusedIsClosedWhenTheLoopKeepsAnother() {
        BodyFiles files = files(1 << 20);
        BodyFile old = files.open();
        BodyFile recent = files.open();
        assertThat(old.append(text("old"))).isTrue();
        assertThat(recent.append(text("recent!"))).isTrue();
        old.close();
        old.keptAt -= BodyFiles.SPARE_IDLE_NANOS + 1; // as if kept 30 s ago
        recent.close();
        assertThat(files.held()).as("the idle one closed, the recent one kept").isEqualTo(7);
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
        assertThat(files.held()).as("a kept: its 6 bytes are still on disk").isEqualTo(10);
        assertThat(b.append(text("123456"))).as("room again once the kept file is closed for it").isTrue();
        assertThat(files.held()).isEqualTo(10);
        assertThat(files.refusals()).isEqualTo(1);
        b.close();
        assertThat(files.held()).as("b kept in turn").isEqualTo(10);
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
    void filesTurnedOffCloseWhatTheLoopKept() {
        BodyFiles files = files(1 << 20);
        BodyFile f = files.open();
        assertThat(f.append(text("kept"))).isTrue();
        f.close();
        assertThat(files.held()).isEqualTo(4);
        files.configure(new Config.RequestBodyFiles(dir.toString(), 0));
        assertThat(files.open()).isNull();
        assertThat(files.held()).isZero();
    }

    private String warnings(String directory, String rule) throws Exception {
        Config c = dev.strait.model.ConfigParser.parse("""
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams: [ { name: app, endpoints: [ "127.0.0.1:9" ] } ]
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ]%s } ] } ]
                requestBodyFiles: { directory: "%s" }
                """.formatted(rule, directory), "test");
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            BodyFiles.checkDirectory(c);
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aDirectoryThatCannotTakeFilesIsSaidAtStartNamingTheField() throws Exception {
        String missing = dir.resolve("gone").toString();
        assertThat(warnings(missing, ", requestBuffering: {}"))
                .contains("requestBodyFiles.directory: " + missing + " is not a writable directory");
        assertThat(warnings(missing, "")).as("no rule reads bodies first: nothing to say").isEmpty();
        assertThat(warnings(dir.toString(), ", requestBuffering: {}")).isEmpty();
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
        assertThat(files.held()).as("not kept over the budget").isZero();
    }
}
