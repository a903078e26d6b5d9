package dev.strait.proxy.handler.files;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Content types by file extension, looked up once per file when it enters the cache, never per hit.
 * Text types carry {@code charset=utf-8}: browsers otherwise guess (RFC 9110 8.3.1), and what
 * they guess differs. Unknown extensions are {@code application/octet-stream}, which browsers
 * download rather than sniff and render.
 */
final class MimeTypes {
    static final String DEFAULT = "application/octet-stream";
    private static final String UTF8 = "; charset=utf-8";
    private static final Map<String, String> TYPES = new HashMap<>(128);

    static {
        // Documents and code
        text("html", "text/html");
        text("htm", "text/html");
        text("css", "text/css");
        text("js", "text/javascript"); // RFC 9239
        text("mjs", "text/javascript");
        text("cjs", "text/javascript");
        text("txt", "text/plain");
        text("md", "text/markdown");
        text("csv", "text/csv");
        text("vtt", "text/vtt");
        text("ics", "text/calendar");
        text("xml", "application/xml");
        text("xhtml", "application/xhtml+xml");
        text("rss", "application/rss+xml");
        text("atom", "application/atom+xml");
        text("svg", "image/svg+xml");
        text("yaml", "application/yaml"); // RFC 9512
        text("yml", "application/yaml");
        // JSON is UTF-8 by definition and defines no charset parameter (RFC 8259 11).
        put("json", "application/json");
        put("map", "application/json");
        put("jsonld", "application/ld+json");
        put("webmanifest", "application/manifest+json");
        put("wasm", "application/wasm");
        put("pdf", "application/pdf");
        // Images
        put("png", "image/png");
        put("apng", "image/apng");
        put("jpg", "image/jpeg");
        put("jpeg", "image/jpeg");
        put("gif", "image/gif");
        put("webp", "image/webp");
        put("avif", "image/avif");
        put("jxl", "image/jxl");
        put("bmp", "image/bmp");
        put("tif", "image/tiff");
        put("tiff", "image/tiff");
        put("ico", "image/x-icon");
        // Fonts
        put("woff", "font/woff");
        put("woff2", "font/woff2");
        put("ttf", "font/ttf");
        put("otf", "font/otf");
        put("eot", "application/vnd.ms-fontobject");
        // Audio and video
        put("mp4", "video/mp4");
        put("m4v", "video/mp4");
        put("webm", "video/webm");
        put("ogv", "video/ogg");
        put("mov", "video/quicktime");
        put("mp3", "audio/mpeg");
        put("m4a", "audio/mp4");
        put("aac", "audio/aac");
        put("ogg", "audio/ogg");
        put("oga", "audio/ogg");
        put("opus", "audio/ogg");
        put("wav", "audio/wav");
        put("flac", "audio/flac");
        put("m3u8", "application/vnd.apple.mpegurl");
        put("mpd", "application/dash+xml");
        put("ts", "video/mp2t"); // HLS segments beside their .m3u8 (nginx's mime.types says the same)
        put("m4s", "video/iso.segment"); // DASH segments
        put("mpeg", "video/mpeg");
        put("mpg", "video/mpeg");
        put("avi", "video/x-msvideo");
        put("mkv", "video/x-matroska");
        put("weba", "audio/webm");
        put("mid", "audio/midi");
        put("midi", "audio/midi");
        // Archives
        put("zip", "application/zip");
        put("gz", "application/gzip");
        put("tgz", "application/gzip");
        put("tar", "application/x-tar");
        put("bz2", "application/x-bzip2");
        put("xz", "application/x-xz");
        put("zst", "application/zstd");
        put("7z", "application/x-7z-compressed");
        put("epub", "application/epub+zip");
        put("rar", "application/vnd.rar");
        put("jar", "application/java-archive");
        put("doc", "application/msword");
        put("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
        put("xls", "application/vnd.ms-excel");
        put("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
        put("ppt", "application/vnd.ms-powerpoint");
        put("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation");
        put("odt", "application/vnd.oasis.opendocument.text");
        put("ods", "application/vnd.oasis.opendocument.spreadsheet");
        put("odp", "application/vnd.oasis.opendocument.presentation");
        put("rtf", "application/rtf");
    }

    private MimeTypes() {}

    private static void text(String ext, String type) {
        TYPES.put(ext, type + UTF8);
    }

    private static void put(String ext, String type) {
        TYPES.put(ext, type);
    }

    /** The Content-Type for a file name: by the text after its last dot, case-insensitively. */
    static String forFileName(String name) {
        int slash = name.lastIndexOf('/');
        int dot = name.lastIndexOf('.');
        if (dot <= slash + 1 || dot == name.length() - 1) {
            return DEFAULT; // no extension, or a dot file such as ".htaccess"
        }
        String type = TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
        return type != null ? type : DEFAULT;
    }
}
