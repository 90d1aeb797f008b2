/*
 * The drain's output files on any Hadoop filesystem (hdfs:, s3a:, viewfs:, ...): a target's
 * dmpmqmsg file is its header followed by its part files, in the order given.
 *
 * concat(conf, header, parts, target) writes the header (ISO-8859-1, as dmpmqmsg text is)
 * and copies every part into "<dir>/.<name>.tmp" through the filesystem's own streams, then
 * renames it to target; it returns the target's length. The bytes stay in the JVM (the
 * Python driver only names the files). The local filesystem (file:) is assembled by
 * dlqhandler/spark/outfiles.py with copy_file_range instead.
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
        try (FSDataOutputStream sink = fs.create(tmp, true)) {
            sink.write(header.getBytes(StandardCharsets.ISO_8859_1));
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
}
