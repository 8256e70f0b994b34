package org.openbox.controller.obi;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The one HTTP client shared by every OBI connection (HTTP/1.1: OBIs speak plain
 * HTTP/1.1; connections are pooled per OBI endpoint by the client).
 */
@Component
public class ObiHttp implements DisposableBean {

    private final ExecutorService executor = Executors.newFixedThreadPool(
            Math.max(4, Runtime.getRuntime().availableProcessors() * 2), r -> {
                Thread t = new Thread(r, "obi-http");
                t.setDaemon(true);
                return t;
            });
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .executor(executor)
            .build();

    public HttpClient client() {
        return client;
    }

    @Override
    public void destroy() {
        executor.shutdownNow();
    }
}
