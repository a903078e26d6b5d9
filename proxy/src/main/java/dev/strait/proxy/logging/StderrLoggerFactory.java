package dev.strait.proxy.logging;

import java.io.PrintStream;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/** One {@link StderrLogger} per name, its level fixed when it is made (loggers live in static fields). */
final class StderrLoggerFactory implements ILoggerFactory {
    private final LogLevels levels;
    private final Supplier<PrintStream> out;
    private final ConcurrentHashMap<String, Logger> loggers = new ConcurrentHashMap<>();

    StderrLoggerFactory(LogLevels levels) {
        this(levels, () -> System.err);
    }

    StderrLoggerFactory(LogLevels levels, Supplier<PrintStream> out) {
        this.levels = levels;
        this.out = out;
    }

    @Override
    public Logger getLogger(String name) {
        Logger l = loggers.get(name);
        return l != null ? l : loggers.computeIfAbsent(name, n -> new StderrLogger(n, levels.of(n), out));
    }
}
