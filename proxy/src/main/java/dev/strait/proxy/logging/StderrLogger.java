package dev.strait.proxy.logging;

import dev.strait.proxy.time.UtcText;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Supplier;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NormalizedParameters;

/**
 * Writes {@code 2026-12-01T02:48:14.048Z WARN ProxyCall - message} and the stack trace of a throwable,
 * if any, in one call on the stream (whose lock keeps lines of different threads whole). Times are
 * UTC, as Kubernetes records container logs.
 */
final class StderrLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    private final int threshold;
    private final String shortName;
    private final transient Supplier<PrintStream> out;

    StderrLogger(String name, int threshold, Supplier<PrintStream> out) {
        this.name = name;
        this.threshold = threshold;
        this.shortName = name.substring(name.lastIndexOf('.') + 1);
        this.out = out;
    }

    @Override
    public boolean isTraceEnabled() {
        return threshold <= Level.TRACE.toInt();
    }

    @Override
    public boolean isDebugEnabled() {
        return threshold <= Level.DEBUG.toInt();
    }

    @Override
    public boolean isInfoEnabled() {
        return threshold <= Level.INFO.toInt();
    }

    @Override
    public boolean isWarnEnabled() {
        return threshold <= Level.WARN.toInt();
    }

    @Override
    public boolean isErrorEnabled() {
        return threshold <= Level.ERROR.toInt();
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable thrown) {
        NormalizedParameters p = NormalizedParameters.normalize(pattern, args, thrown);
        String message = p.getArguments() == null || p.getArguments().length == 0 ? p.getMessage()
                : MessageFormatter.basicArrayFormat(p.getMessage(), p.getArguments());
        StringBuilder line = new StringBuilder(64 + (message == null ? 4 : message.length()));
        UtcText.appendIsoInstant(line, System.currentTimeMillis())
                .append(' ').append(level).append(' ').append(shortName).append(" - ").append(message)
                .append(System.lineSeparator());
        if (p.getThrowable() != null) {
            StringWriter trace = new StringWriter();
            p.getThrowable().printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        PrintStream s = out.get();
        s.print(line);
        s.flush();
    }
}
