package dev.strait.proxy.handler.files;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import io.netty.handler.codec.http.HttpResponseStatus;

/** The {@code files} action. (Placeholder signature: being written.) */
public final class FileHandler implements Handler {
    private FileHandler() {}

    public static FileHandler create(Route.Files files, String path) {
        return new FileHandler();
    }

    @Override
    public void handle(Exchange exchange) {
        exchange.sendError(HttpResponseStatus.NOT_IMPLEMENTED);
    }
}
