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
 * first record (a part of audit rows only has none). With counts (option "counts",
 * RowCounts) every row is also counted, and the counts written beside the part. With
 * groups (option "groups", GroupStates, shared by the task's parts) every row is tracked.
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.ProjectingInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;

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
    private static final byte[] UPPER_HEX = new byte[256];  // a hex digit upper-cased, else 0

    static {
        for (int i = 0; i < 256; i++) {
            int v = DumpMessage.hexValue((byte) i);
            UPPER_HEX[i] = v < 0 ? 0 : HEX[v];
        }
    }

    private final String path;
    private final Configuration conf;
    private OutputStream out;
    private final String header;
    private final int record;
    private final int strip;
    private final int[] told;  // md_format, dlh_format, dlh_encoding, dlh_ccsid; or null
    private final OutputWriter audit;
    private final ProjectingInternalRow auditRow;  // the audit columns of the row in hand
    private boolean started;
    private final RowCounts counts;  // null: no option "counts"
    private final GroupStates groups;  // null: no option "groups"
    private final DumpMessage.ByteSink buf = new DumpMessage.ByteSink(1 << 12);  // a record

    DumpRecordWriter(String path, Configuration conf, String header, int record, int strip,
                     int[] told,
                     OutputWriter audit, int[] auditColumns, StructType auditSchema,
                     RowCounts counts, GroupStates groups)
            throws IOException {
        this.path = path;
        this.counts = counts;
        this.groups = groups;
        this.conf = conf;
        String text = header == null ? defaultHeader() : header;
        this.header = text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
        this.record = record;
        this.strip = strip;
        this.told = told;
        this.audit = audit;
        // a view of the row's audit columns (no copy, no boxing): the Parquet writer
        // reads each value as it writes the row
        this.auditRow = audit == null ? null : ProjectingInternalRow.apply(auditSchema,
            scala.jdk.javaapi.CollectionConverters.asScala(
                java.util.Arrays.stream(auditColumns).boxed()
                    .collect(java.util.stream.Collectors.<Object>toList())).toList());
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
        if (counts != null) {
            counts.add(row);
        }
        if (groups != null) {
            groups.add(row);
        }
        if (audit != null) {
            auditRow.project(row);
            audit.write(auditRow);
        }
        if (row.isNullAt(record)) {
            return;
        }
        // The record where the row holds it: an UnsafeRow's bytes are written from its
        // own buffer (no copy of each record into a new array); any other row's copied.
        byte[] bytes;
        int off = 0;
        int len;
        Object base = row instanceof UnsafeRow ? ((UnsafeRow) row).getBaseObject() : null;
        if (base instanceof byte[]) {
            UnsafeRow u = (UnsafeRow) row;
            long offsetAndSize = u.getLong(record);
            bytes = (byte[]) base;
            off = (int) (u.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET + (offsetAndSize >> 32));
            len = (int) offsetAndSize;
        } else {
            bytes = row.getBinary(record);
            len = bytes.length;
        }
        boolean crlf = crlf(bytes, off, len);
        try {
            if (out == null) {
                open();
            }
            if (!started) {
                writeHeader(crlf);
            }
            if (strip >= 0 && !row.isNullAt(strip) && row.getBoolean(strip)) {
                byte[] own = off == 0 && len == bytes.length ? bytes
                    : Arrays.copyOfRange(bytes, off, off + len);
                if (!writeTold(row, own, crlf)) {
                    writeStripped(own, crlf);
                }
                return;
            }
            out.write(bytes, off, len);
            out.write(ending(bytes, off, len, crlf));
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

    private static final byte[] CRLF = {'\r', '\n'};

    private static byte[] lineEnd(boolean crlf) {
        return crlf ? CRLF : LF;
    }

    /** Whether the first line of b[off, off + len) ends with CR LF. */
    private static boolean crlf(byte[] b, int off, int len) {
        int i = DumpMessage.find(b, off, off + len, (byte) '\n');
        return i > off && b[i - 1] == '\r';
    }

    private static final byte[] NOTHING = new byte[0];
    private static final byte[] LF = {'\n'};

    /**
     * What completes a record copied as read so that it ends with an empty line, as
     * dmpmqmsg ends every message, by the line-end rule both readers follow
     * (docs/datasource.md, "Line ends"): a line ends at LF, a CR just before it is part of
     * the line end, and a CR that is the last byte of the file is its last line's end. So a record ending in a lone CR (a CRLF file cut before its last LF) has
     * that CR completed with an LF, never a second CR (which would make a line holding a
     * CR that neither reader takes for empty); a last line without a line end gets one;
     * and an empty line is added unless the last line is one.
     */
    static byte[] ending(byte[] b, int off, int len, boolean crlf) {
        int n = off + len;
        if (len == 0) {
            return NOTHING;
        }
        byte[] close = b[n - 1] == '\n' ? NOTHING : b[n - 1] == '\r' ? LF : lineEnd(crlf);
        // the last line, its line end completed: [start, end) without its CR LF or LF
        int end = b[n - 1] == '\n' ? n - 1 : n;
        if (end > off && b[end - 1] == '\r') {
            end--;
        }
        int start = end;
        while (start > off && b[start - 1] != '\n') {
            start--;
        }
        if (start == end) {
            return close;  // the last line is empty: the message is ended
        }
        byte[] nl = lineEnd(crlf);
        byte[] more = Arrays.copyOf(close, close.length + nl.length);
        System.arraycopy(nl, 0, more, close.length, nl.length);
        return more;
    }

    /**
     * The stripped record from the MQDLH values the reader decoded (the row's told
     * columns) and the record's X lines, without decoding it again; false (nothing
     * written) without them, for an MQRFH2 in front of the MQDLH (MQMD Format MQHRF2),
     * or S or T lines.
     */
    private boolean writeTold(InternalRow row, byte[] b, boolean crlf) throws IOException {
        if (told == null) {
            return false;
        }
        for (int c : told) {
            if (row.isNullAt(c)) {
                return false;
            }
        }
        if ("MQHRF2".equals(row.getUTF8String(told[0]).toString())) {
            return false;
        }
        if (!copiedWithout(b, lineEnd(crlf), row.getUTF8String(told[1]).toString(),
                           row.getInt(told[2]), row.getInt(told[3]))) {
            return false;
        }
        out.write(buf.buf, 0, buf.size);
        buf.size = 0;
        return true;
    }

    /** Into buf: the record without its MQDLH, whose Format, Encoding and CCSID are given,
     *  copied from its X lines; false (buf empty) when it has S or T lines. */
    private boolean copiedWithout(byte[] b, byte[] nl, String format, int encoding,
                                  int ccsid) {
        if (hexAfterDlh(b, attributes(b, nl, format, encoding, ccsid), nl)) {
            return true;
        }
        buf.size = 0;
        return false;
    }

    private void writeStripped(byte[] b, boolean crlf) throws IOException {
        // The MQDLH at the start of the data needs only its bytes decoded: the data after
        // it is copied as hex text (hexAfterDlh). An MQRFH2 in front of it, S or T lines
        // need the whole data decoded and written again (StrippedRecord).
        DumpMessage m = DumpMessage.decode(b, 0, b.length, DumpMessage.DLH_PREFIX);
        DumpMessage.Dlh dlh = m.error == null ? m.dlh(b, false) : null;
        if (dlh == null || dlh.error != null) {
            throw new IOException("cannot write a message without its MQDLH: "
                + (m.error != null ? m.error : dlh.error) + " (record " + preview(b) + ")");
        }
        byte[] nl = lineEnd(crlf);
        if (dlh.inFront != 0 || !copiedWithout(b, nl, (String) dlh.values[5],
                                               (Integer) dlh.values[3], (Integer) dlh.values[4])) {
            if (m.body.length < m.bodyLength) {
                m = DumpMessage.decode(b, 0, b.length);
                dlh = DumpMessage.decodeDlh(m.md, m.body, false);
            }
            StrippedRecord.Parts parts = StrippedRecord.of(m.md, m.body, dlh);
            attributes(b, nl, parts.format, parts.encoding, parts.ccsid);
            hexLines(parts.data, nl);
        }
        out.write(buf.buf, 0, buf.size);  // the whole record in one write
        buf.size = 0;
    }

    /** Into buf (emptied first): the record's lines before its data as read, but A FMT,
     *  A ENC and A CCS, which take these values (added when the record has none); the
     *  offset in b where its data lines begin. */
    private int attributes(byte[] b, byte[] nl, String format, int encoding, int ccsid) {
        buf.size = 0;
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
                buf.write(b, pos, next - pos);
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
        return pos;
    }

    /**
     * Into buf: the data after the MQDLH's bytes as X lines of WIDTH bytes of upper-case
     * hex and the empty line that ends the message, copied from the hex digits of the
     * record's X lines from {@code at} (the digits the reader decodes: after the blanks
     * following the X, up to the first other character). False, with buf as it was, when
     * a data line is not an X line (S, T): the caller decodes the data instead.
     */
    private boolean hexAfterDlh(byte[] b, int at, byte[] nl) {
        int mark = buf.size;
        int digits = b.length - at;  // at most
        buf.ensure(digits + (digits / (2 * WIDTH) + 2) * (2 + nl.length) + 2 * nl.length);
        byte[] a = buf.buf;
        int n = buf.size;
        int skip = 2 * DumpTables.DLH_LENGTH;  // the MQDLH's hex digits
        int col = 0;  // digits on the line being written
        a[n++] = 'X';
        a[n++] = ' ';
        int pos = at;
        while (pos < b.length) {
            byte c = b[pos];
            int e = pos;
            if (c == 'X') {
                int i = pos + 1;
                while (i < b.length && b[i] == ' ') {
                    i++;
                }
                e = i;
                while (e < b.length && UPPER_HEX[b[e] & 0xFF] != 0) {
                    e++;
                }
                int from = Math.min(e, i + skip);
                skip -= from - i;
                for (int k = from; k < e; k++) {
                    if (col == 2 * WIDTH) {
                        for (byte x : nl) {
                            a[n++] = x;
                        }
                        a[n++] = 'X';
                        a[n++] = ' ';
                        col = 0;
                    }
                    a[n++] = UPPER_HEX[b[k] & 0xFF];
                    col++;
                }
            } else if (c != '*' && c != '\r' && c != '\n') {
                buf.size = mark;  // an S or T line
                return false;
            }
            while (e < b.length && b[e] != '\n') {
                e++;
            }
            pos = e + 1;
        }
        for (int k = 0; k < 2; k++) {
            for (byte x : nl) {
                a[n++] = x;
            }
        }
        buf.size = n;
        return true;
    }

    /** Into buf: data as X lines of WIDTH bytes of upper-case hex ("X " for none), and
     *  the empty line that ends the message. */
    private void hexLines(byte[] body, byte[] nl) {
        int lines = Math.max(1, (body.length + WIDTH - 1) / WIDTH);
        buf.ensure(2 * body.length + lines * (2 + nl.length) + nl.length);
        byte[] a = buf.buf;
        int at = buf.size;
        for (int i = 0; i == 0 || i < body.length; i += WIDTH) {
            a[at++] = 'X';
            a[at++] = ' ';
            for (int k = i; k < Math.min(body.length, i + WIDTH); k++) {
                a[at++] = HEX[(body[k] >> 4) & 15];
                a[at++] = HEX[body[k] & 15];
            }
            for (byte x : nl) {
                a[at++] = x;
            }
        }
        for (byte x : nl) {
            a[at++] = x;
        }
        buf.size = at;
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

    private void writeText(String text, byte[] nl) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        buf.write(bytes, 0, bytes.length);
        buf.write(nl, 0, nl.length);
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
            if (counts != null && !counts.isEmpty()) {
                String base = path.endsWith(".dmp") ? path.substring(0, path.length() - 4) : path;
                counts.write(conf, base + RowCounts.SUFFIX);
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
