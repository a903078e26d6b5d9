package dev.strait.proxy.handler.files;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Map;
import java.util.Objects;

/**
 * One {@code stat} of a file: what tells one version of it from the next.
 *
 * <p>Size, mtime and the file key (device, inode) are not enough: {@code tar x}, {@code cp -p} and
 * reproducible builds write new bytes of the same size under the old mtime, and ext4 hands a
 * re-created file its predecessor's freed inode. The status-change time ({@code ctime}) is set by the
 * kernel on every write, truncate, chmod, rename or re-creation and cannot be set from user space, so
 * a stamp that includes it changes whenever the file's bytes or permissions may have. Where the
 * platform has no {@code unix} attribute view, {@code ctime} is {@code null} and the other three decide.
 */
record FileStamp(long size, FileTime mtime, FileTime ctime, Object fileKey, boolean isRegularFile,
                 boolean isDirectory) {
    /** Everything one stat gives that a stamp keeps; one system call however many are named. */
    private static final String UNIX_ATTRIBUTES = "unix:size,lastModifiedTime,ctime,fileKey,isRegularFile,isDirectory";
    private static volatile boolean unixView = true;
    private static volatile boolean posixView = true;
    /**
     * {@code ctime()} of the JDK's own stat result on Unix, where the jar opens {@code sun.nio.fs} to us
     * (its manifest's {@code Add-Opens}): the same stat as the basic attributes, without the {@code unix}
     * view's attribute map (names parsed, values boxed; about a tenth of a small file's hit here).
     */
    private static final MethodHandle CTIME = ctimeOfUnixAttributes();

    /** Stats {@code path}, following links. */
    static FileStamp of(Path path) throws IOException {
        if (CTIME != null && posixView) {
            // The posix view hands back the stat result itself (the basic view wraps it); owner and group
            // are looked up only when asked for.
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(path, PosixFileAttributes.class);
            } catch (UnsupportedOperationException e) {
                posixView = false;
                return ofUnixView(path);
            }
            FileTime ctime = null;
            if (CTIME.type().parameterType(0).isInstance(a)) {
                try {
                    ctime = (FileTime) CTIME.invoke(a);
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }
            return new FileStamp(a.size(), a.lastModifiedTime(), ctime, a.fileKey(), a.isRegularFile(), a.isDirectory());
        }
        return ofUnixView(path);
    }

    /** {@link #of} through the {@code unix} attribute view (or basic attributes where there is none). */
    static FileStamp ofUnixView(Path path) throws IOException {
        if (unixView) {
            try {
                Map<String, Object> a = Files.readAttributes(path, UNIX_ATTRIBUTES);
                return new FileStamp((Long) a.get("size"), (FileTime) a.get("lastModifiedTime"),
                        (FileTime) a.get("ctime"), a.get("fileKey"), (Boolean) a.get("isRegularFile"),
                        (Boolean) a.get("isDirectory"));
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                unixView = false; // not a unix file system provider: basic attributes from now on
            }
        }
        return of(Files.readAttributes(path, BasicFileAttributes.class));
    }

    private static MethodHandle ctimeOfUnixAttributes() {
        try {
            Class<?> c = Class.forName("sun.nio.fs.UnixFileAttributes");
            Method m = c.getDeclaredMethod("ctime");
            m.setAccessible(true); // only where sun.nio.fs is opened to us: else the unix view serves
            return MethodHandles.lookup().unreflect(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** A stamp without {@code ctime}, from attributes read elsewhere (tests, other platforms). */
    static FileStamp of(BasicFileAttributes a) {
        return new FileStamp(a.size(), a.lastModifiedTime(), null, a.fileKey(), a.isRegularFile(), a.isDirectory());
    }

    /** Whether {@code other}, read later, describes the same version of the same file. */
    boolean sameVersion(FileStamp other) {
        return size == other.size
                && mtime.equals(other.mtime)
                && Objects.equals(ctime, other.ctime)
                && Objects.equals(fileKey, other.fileKey)
                && isRegularFile == other.isRegularFile;
    }
}
