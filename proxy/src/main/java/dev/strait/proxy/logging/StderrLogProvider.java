package dev.strait.proxy.logging;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The proxy's slf4j binding: one line per event on stderr (stdout carries the JSON access log), the
 * level from {@code STRAIT_LOG_LEVEL}. {@code Main} selects it with slf4j's {@code slf4j.provider}
 * property rather than a service file, so the operator and the tests, which have the proxy's classes
 * on their class path, keep their own binding (docs/adr/0029).
 */
public final class StderrLogProvider implements SLF4JServiceProvider {
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();
    private StderrLoggerFactory loggers;

    @Override
    public void initialize() {
        loggers = new StderrLoggerFactory(LogLevels.fromEnvironment(System.getenv(), System.getProperties()));
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }
}
