package org.openbox.controller.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A lightweight HTTP/1.1 poster for simulating many OBIs from one process: a few threads,
 * each sending the queued POSTs of its share of the OBIs (dpid modulo the thread count) one
 * after the other on persistent keep-alive connections and reading each answer. Plain HTTP:
 * one connection per thread, shared by its OBIs. Mutual TLS: one connection per OBI,
 * presenting that OBI's certificate (the controller takes a message's dpid from the
 * certificate it arrives with) and checking the controller's certificate names its address.
 * Latency counts from submission, so queueing is included.
 */
final class RawPoster implements AutoCloseable {

    /** Receives the HTTP status (or -1 on I/O failure) and the latency in nanoseconds. */
    interface Done {
        void done(int status, long nanos);
    }

    private record Job(long dpid, String path, byte[] body, long submitted, Done done) {}

    private final String host;
    private final int port;
    private final LongFunction<SSLContext> tls;
    private final List<BlockingQueue<Job>> queues = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    /**
     * Plain HTTP when {@code tls} is null; otherwise mutual TLS, {@code tls} giving the
     * context that presents an OBI's certificate.
     */
    RawPoster(String host, int port, int threads, LongFunction<SSLContext> tls) {
        this.host = host;
        this.port = port;
        this.tls = tls;
        for (int i = 0; i < threads; i++) {
            BlockingQueue<Job> queue = new LinkedBlockingQueue<>();
            queues.add(queue);
            Thread t = new Thread(() -> loop(queue), "raw-poster-" + i);
            t.setDaemon(true);
            t.start();
            this.threads.add(t);
        }
    }

    /** Queues a POST of OBI {@code dpid}. */
    void post(long dpid, String path, String body, Done done) {
        queues.get((int) Math.floorMod(dpid, (long) queues.size()))
                .add(new Job(dpid, path, body.getBytes(StandardCharsets.UTF_8), System.nanoTime(), done));
    }

    private void loop(BlockingQueue<Job> queue) {
        Map<Long, Socket> sockets = new HashMap<>();   // by dpid with TLS, one (key 0) without
        while (!closed) {
            Job job;
            try {
                job = queue.take();
            } catch (InterruptedException e) {
                break;
            }
            long key = tls == null ? 0 : job.dpid();
            int status = -1;
            for (int attempt = 0; attempt < 2 && status < 0; attempt++) {
                Socket socket = sockets.get(key);
                try {
                    if (socket == null) {
                        socket = connect(job.dpid());
                        sockets.put(key, socket);
                    }
                    status = exchange(socket, job);
                } catch (IOException | RuntimeException e) {
                    closeQuietly(socket);
                    sockets.remove(key);   // the server closed an idle connection: reconnect once
                }
            }
            job.done().done(status, System.nanoTime() - job.submitted());
        }
        sockets.values().forEach(RawPoster::closeQuietly);
    }

    private Socket connect(long dpid) throws IOException {
        Socket plain = new Socket(host, port);
        plain.setTcpNoDelay(true);
        if (tls == null) {
            return plain;
        }
        SSLSocket s = (SSLSocket) tls.apply(dpid).getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private int exchange(Socket s, Job job) throws IOException {
        OutputStream out = s.getOutputStream();
        String head = "POST " + job.path() + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nContent-Type: application/json\r\nContent-Length: " + job.body().length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(job.body());
        out.flush();
        InputStream in = new BufferedInputStream(s.getInputStream(), 1);
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        int length = 0;
        boolean chunked = false;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            String lower = h.toLowerCase();
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(h.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (int size = Integer.parseInt(line(in).trim(), 16); size > 0; size = Integer.parseInt(line(in).trim(), 16)) {
                in.readNBytes(size);
                line(in);
            }
            line(in);
        } else {
            in.readNBytes(length);
        }
        return status;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    private static void closeQuietly(Socket s) {
        try {
            if (s != null) {
                s.close();
            }
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closed = true;
        threads.forEach(Thread::interrupt);
    }
}
