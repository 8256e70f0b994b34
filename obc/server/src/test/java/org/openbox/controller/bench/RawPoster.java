package org.openbox.controller.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A lightweight HTTP/1.1 poster for simulating many OBIs from one process: a few persistent
 * keep-alive connections, each owned by one thread that sends queued POSTs one after the
 * other and reads each answer. Latency counts from submission, so queueing is included.
 */
final class RawPoster implements AutoCloseable {

    /** Receives the HTTP status (or -1 on I/O failure) and the latency in nanoseconds. */
    interface Done {
        void done(int status, long nanos);
    }

    private record Job(String path, byte[] body, long submitted, Done done) {}

    private final String host;
    private final int port;
    private final BlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    RawPoster(String host, int port, int connections) {
        this.host = host;
        this.port = port;
        for (int i = 0; i < connections; i++) {
            Thread t = new Thread(this::loop, "raw-poster-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    void post(String path, String body, Done done) {
        queue.add(new Job(path, body.getBytes(StandardCharsets.UTF_8), System.nanoTime(), done));
    }

    private void loop() {
        Socket socket = null;
        while (!closed) {
            Job job;
            try {
                job = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            int status = -1;
            for (int attempt = 0; attempt < 2 && status < 0; attempt++) {
                try {
                    if (socket == null) {
                        socket = new Socket(host, port);
                        socket.setTcpNoDelay(true);
                    }
                    status = exchange(socket, job);
                } catch (IOException e) {
                    closeQuietly(socket);
                    socket = null;   // the server closed an idle connection: reconnect once
                }
            }
            job.done().done(status, System.nanoTime() - job.submitted());
        }
        closeQuietly(socket);
    }

    private int exchange(Socket s, Job job) throws IOException {
        OutputStream out = s.getOutputStream();
        String head = "POST " + job.path() + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nContent-Type: application/json\r\nContent-Length: " + job.body().length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(job.body());
        out.flush();
        InputStream in = new BufferedInputStream(s.getInputStream(), 1) ;
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
