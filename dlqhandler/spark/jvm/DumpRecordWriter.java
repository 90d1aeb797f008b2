/*
 * One part file of a dmpmqmsg write: the file header, then each row's record as bytes.
 *
 * A record is written as read (its bytes copied), or, when the row's strip_dlh column is
 * true, rewritten without its MQDLH for RETRY and FWD HEADER(NO), as StrippedRecord and
 * dlqhandler.formats.dmpmqmsg.DumpWriter do: the lines before the data as read except
 * A FMT (blank padded to 8), A ENC and A CCS, which take the MQDLH's Format, Encoding
 * and CodedCharSetId; then the data after the MQDLH's 172 bytes in X lines of 25 bytes of
 * upper-case hex (a single "X " for none), and the empty line that ends a message. The
 * header takes the line end of the first record (CRLF files stay CRLF). A row whose
 * record is null (a cut-off message) is not written. A record that does not end with an
 * empty line (the last of a file that ends without one) gets one, so the next record
 * still begins a message.
 *
 * An empty header ("") writes none. With an audit writer (option "audit"), every row's
 * audit columns also go to it, record or not, and the .dmp file is created with the
 * first record (a part of audit rows only has none).
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

final class DumpRecordWriter extends OutputWriter {
    /** The header dmpmqmsg writes: "* DMPMQMSG Version:9.4 Created:" and the C ctime()
     *  text of the local time (day of the month blank padded), then an empty line. */
    static String defaultHeader() {
        return "* DMPMQMSG Version:9.4 Created:" + java.time.LocalDateTime.now().format(
            java.time.format.DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy",
                                                         java.util.Locale.ROOT)) + "\n\n";
    }
    private static final int WIDTH = 25;  // data bytes per X line
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    private final String path;
    private final Configuration conf;
    private OutputStream out;
    private final String header;
    private final int record;
    private final int strip;
    private final OutputWriter audit;
    private final int[] auditColumns;
    private final DataType[] auditTypes;
    private boolean started;

    DumpRecordWriter(String path, Configuration conf, String header, int record, int strip,
                     OutputWriter audit, int[] auditColumns, StructType auditSchema)
            throws IOException {
        this.path = path;
        this.conf = conf;
        String text = header == null ? defaultHeader() : header;
        this.header = text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
        this.record = record;
        this.strip = strip;
        this.audit = audit;
        this.auditColumns = auditColumns;
        this.auditTypes = new DataType[auditColumns == null ? 0 : auditColumns.length];
        for (int i = 0; i < auditTypes.length; i++) {
            auditTypes[i] = auditSchema.fields()[i].dataType();
        }
        if (audit == null) {
            open();
        }
    }

    private void open() throws IOException {
        Path p = new Path(path);
        this.out = new java.io.BufferedOutputStream(p.getFileSystem(conf).create(p, false),
                                                    1 << 16);
    }

    @Override
    public void write(InternalRow row) {
        if (audit != null) {
            Object[] values = new Object[auditColumns.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.isNullAt(auditColumns[i]) ? null
                    : row.get(auditColumns[i], auditTypes[i]);
            }
            audit.write(new GenericInternalRow(values));
        }
        if (row.isNullAt(record)) {
            return;
        }
        byte[] bytes = row.getBinary(record);
        boolean crlf = crlf(bytes);
        try {
            if (out == null) {
                open();
            }
            if (!started) {
                writeHeader(crlf);
            }
            if (strip >= 0 && !row.isNullAt(strip) && row.getBoolean(strip)) {
                writeStripped(bytes, crlf);
                return;
            }
            out.write(bytes);
            if (!endsWithEmptyLine(bytes)) {
                if (bytes.length > 0 && bytes[bytes.length - 1] != '\n') {
                    out.write(lineEnd(crlf));
                }
                out.write(lineEnd(crlf));
            }
        } catch (IOException e) {
            throw new DmpmqmsgFileFormat.DumpReadException("writing " + path + ": "
                + e.getMessage(), e);
        }
    }

    private void writeHeader(boolean crlf) throws IOException {
        started = true;
        if (header.isEmpty()) {
            return;
        }
        String text = crlf ? header.replace("\r\n", "\n").replace("\n", "\r\n") : header;
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        if (!text.endsWith(crlf ? "\r\n\r\n" : "\n\n")) {
            out.write(lineEnd(crlf));  // the empty line after the header
        }
    }

    private static byte[] lineEnd(boolean crlf) {
        return crlf ? new byte[] {'\r', '\n'} : new byte[] {'\n'};
    }

    private static boolean crlf(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '\n') {
                return i > 0 && b[i - 1] == '\r';
            }
        }
        return false;
    }

    private static boolean endsWithEmptyLine(byte[] b) {
        int n = b.length;
        if (n >= 2 && b[n - 1] == '\n' && b[n - 2] == '\n') {
            return true;
        }
        return n >= 4 && b[n - 1] == '\n' && b[n - 2] == '\r' && b[n - 3] == '\n'
            && b[n - 4] == '\r';
    }

    private void writeStripped(byte[] b, boolean crlf) throws IOException {
        DumpMessage m = DumpMessage.decode(b, 0, b.length);
        DumpMessage.Dlh dlh = m.error == null ? DumpMessage.decodeDlh(m.md, m.body, false)
            : null;
        if (dlh == null || dlh.error != null) {
            throw new IOException("cannot write a message without its MQDLH: "
                + (m.error != null ? m.error : dlh.error) + " (record " + preview(b) + ")");
        }
        StrippedRecord.Parts parts = StrippedRecord.of(m.md, m.body, dlh);
        String format = parts.format;
        int encoding = parts.encoding;
        int ccsid = parts.ccsid;
        byte[] nl = lineEnd(crlf);
        boolean fmt = false, enc = false, ccs = false;
        int pos = 0;
        while (pos < b.length) {
            int e = pos;
            while (e < b.length && b[e] != '\n') {
                e++;
            }
            int next = Math.min(e + 1, b.length);
            byte c = b[pos];
            if (c == 'X' || c == 'S' || c == 'T') {
                break;
            }
            if (startsWith(b, pos, "A FMT")) {
                writeText("A FMT " + pad(format), nl);
                fmt = true;
            } else if (startsWith(b, pos, "A ENC")) {
                writeText("A ENC " + encoding, nl);
                enc = true;
            } else if (startsWith(b, pos, "A CCS")) {
                writeText("A CCS " + ccsid, nl);
                ccs = true;
            } else {
                out.write(b, pos, next - pos);
            }
            pos = next;
        }
        if (!fmt) {
            writeText("A FMT " + pad(format), nl);
        }
        if (!enc) {
            writeText("A ENC " + encoding, nl);
        }
        if (!ccs) {
            writeText("A CCS " + ccsid, nl);
        }
        byte[] body = parts.data;
        int from = 0;
        if (from >= body.length) {
            out.write('X');
            out.write(' ');
            out.write(nl);
        }
        for (int i = from; i < body.length; i += WIDTH) {
            out.write('X');
            out.write(' ');
            for (int k = i; k < Math.min(body.length, i + WIDTH); k++) {
                out.write(HEX[(body[k] >> 4) & 15]);
                out.write(HEX[body[k] & 15]);
            }
            out.write(nl);
        }
        out.write(nl);
    }

    private static String pad(String format) {
        StringBuilder s = new StringBuilder(format);
        while (s.length() < 8) {
            s.append(' ');
        }
        return s.toString();
    }

    private static boolean startsWith(byte[] b, int at, String prefix) {
        if (b.length - at < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (b[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return b.length - at == prefix.length() || b[at + prefix.length()] == ' '
            || b[at + prefix.length()] == '\r' || b[at + prefix.length()] == '\n';
    }

    private void writeText(String text, byte[] nl) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.write(nl);
    }

    private static String preview(byte[] b) {
        int n = Math.min(b.length, 40);
        return DumpMessage.pyRepr(new String(b, 0, n, StandardCharsets.ISO_8859_1)
            + (b.length > n ? "..." : ""));
    }

    @Override
    public void close() {
        try {
            if (audit != null) {
                audit.close();
            }
            if (out == null) {
                return;  // audit rows only: no dump file
            }
            if (!started) {
                writeHeader(false);
            }
            out.close();
        } catch (IOException e) {
            throw new DmpmqmsgFileFormat.DumpReadException("closing " + path + ": "
                + e.getMessage(), e);
        }
    }

    @Override
    public String path() {
        return path;
    }
}
