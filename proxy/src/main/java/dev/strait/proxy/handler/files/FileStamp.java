package dev.strait.proxy.handler.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
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

    /** Stats {@code path}, following links. */
    static FileStamp of(Path path) throws IOException {
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
