package org.openbox.catalogue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/** Lists the file names of a classpath resource directory, whether it is a directory or inside a jar. */
final class ResourceLister {

    private ResourceLister() {}

    static TreeSet<String> list(ClassLoader loader, String dir) {
        TreeSet<String> names = new TreeSet<>();
        try {
            Enumeration<URL> urls = loader.getResources(dir);
            while (urls.hasMoreElements()) {
                URL url = urls.nextElement();
                if ("file".equals(url.getProtocol())) {
                    try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
                        files.forEach(p -> names.add(p.getFileName().toString()));
                    }
                } else {
                    URLConnection c = url.openConnection();
                    if (c instanceof JarURLConnection jc) {
                        jc.setUseCaches(false);
                        try (JarFile jar = jc.getJarFile()) {
                            listJar(jar, dir, names);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list classpath directory " + dir, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot list classpath directory " + dir, e);
        }
        return names;
    }

    private static void listJar(JarFile jar, String dir, TreeSet<String> names) {
        String prefix = dir + "/";
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
            String n = entries.nextElement().getName();
            if (n.startsWith(prefix) && n.length() > prefix.length() && n.indexOf('/', prefix.length()) < 0) {
                names.add(n.substring(prefix.length()));
            }
        }
    }
}
