/*
 * The drain's output files on any Hadoop filesystem (hdfs:, s3a:, viewfs:, ...): a target's
 * dmpmqmsg file is its header followed by its part files, in the order given.
 *
 * concat(conf, header, parts, target) writes the header (ISO-8859-1, as dmpmqmsg text is;
 * with CRLF line ends when the first part's first line has them)
 * and copies every part into "<dir>/.<name>.tmp" through the filesystem's own streams, then
 * renames it to target; it returns the target's length. The bytes stay in the JVM (the
 * Python driver only names the files). The local filesystem (file:) is assembled by
 * dlqhandler/spark/files.py with copy_file_range instead. texts(conf, paths) reads
 * the small text files the writers leave beside their parts (RowCounts).
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

public final class DumpFiles {
    private static final int BUFFER = 1 << 20;

    private DumpFiles() {
    }

    public static long concat(Configuration conf, String header, String[] parts, String target)
            throws IOException {
        Path out = new Path(target);
        FileSystem fs = out.getFileSystem(conf);
        Path tmp = new Path(out.getParent(), "." + out.getName() + ".tmp");
        byte[] buffer = new byte[BUFFER];
        String text = parts.length > 0 && crlf(conf, parts[0])
            ? header.replace("\r\n", "\n").replace("\n", "\r\n") : header;
        try (FSDataOutputStream sink = fs.create(tmp, true)) {
            sink.write(text.getBytes(StandardCharsets.ISO_8859_1));
            for (String part : parts) {
                Path p = new Path(part);
                try (InputStream in = p.getFileSystem(conf).open(p)) {
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        sink.write(buffer, 0, n);
                    }
                }
            }
        }
        if (fs.exists(out)) {
            fs.delete(out, false);
        }
        if (!fs.rename(tmp, out)) {
            throw new IOException("cannot rename " + tmp + " to " + out);
        }
        return fs.getFileStatus(out).getLen();
    }

    /** The UTF-8 text of each of paths (small files: a writer's counts). */
    public static String[] texts(Configuration conf, String[] paths) throws IOException {
        String[] texts = new String[paths.length];
        for (int i = 0; i < paths.length; i++) {
            Path p = new Path(paths[i]);
            try (InputStream in = p.getFileSystem(conf).open(p)) {
                texts[i] = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        return texts;
    }

    /** Whether the first line of a part ends with CRLF (its records are copied as read,
     *  so a CRLF input's output file gets a CRLF header). */
    private static boolean crlf(Configuration conf, String part) throws IOException {
        Path p = new Path(part);
        byte[] head = new byte[4096];
        int n = 0;
        try (InputStream in = p.getFileSystem(conf).open(p)) {
            for (int r = in.read(head, 0, head.length); r > 0 && n < head.length;
                 r = in.read(head, n, head.length - n)) {
                n += r;
            }
        }
        for (int i = 0; i < n; i++) {
            if (head[i] == '\n') {
                return i > 0 && head[i - 1] == '\r';
            }
        }
        return false;
    }
}
